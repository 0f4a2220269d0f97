"""Training tables and the samples the networks learn from.

A table is an image and its labelled dice. Photographs come from the
labelled dice photographs (labels.csv: split, image, face, box); synthetic
tables from `liarsd synth` (labels.csv: image, face, star, artwork,
uncertain, x, y, size, box). Every random choice draws from a
numpy Generator the caller seeds, so a training replays exactly.

The face classifier's window is cut as the Go reader cuts it (vision/faces.go):
an axis-aligned square of FACE_WINDOW times the die's extent around its
centre, padded by replicating the border, shrunk to FACE_INPUT with area
interpolation, then standardised (standardise()).
"""

import csv
import json
import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from nets import FACE_INPUT, FACE_WINDOW, FINDER_MAX, FINDER_MIN, FINDER_SIZE_UNIT, FINDER_STRIDE, FINDER_TOO_BIG, NONE, STAR, UNREADABLE


# MIN_READABLE is the least extent, px, of a die the face classifier learns to
# read (the reader trusts none under 16).
MIN_READABLE = 13


@dataclass
class Die:
    x: float  # centre, px
    y: float
    extent: float  # side of the die's axis-aligned box, px
    cls: int  # index into FACE_CLASSES


@dataclass
class Table:
    name: str
    img: np.ndarray  # BGR uint8
    dice: list = field(default_factory=list)
    photo: bool = True

    def median_extent(self):
        if not self.dice:
            return 0.0
        return float(np.median([d.extent for d in self.dice]))


def star_dice(root):
    """star_dice reports whether a folder of labelled photographs holds star
    dice (a face 1 is the star): an examples folder a table wrote says so in
    examples.json."""
    path = os.path.join(root, "examples.json")
    if not os.path.exists(path):
        return False
    with open(path) as f:
        return bool(json.load(f).get("star_dice", False))


def load_photos(root, split, keep=None):
    """load_photos reads one split of the labelled photographs (or of a
    table's examples folder, the same form); keep, when given, says which
    image names (sorted order index, name) to keep."""
    star = star_dice(root)
    by_image = {}
    with open(os.path.join(root, "labels.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["split"] != split:
                continue
            x0, y0, x1, y1 = (float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            cls = int(row["face"]) - 1
            if star and cls == 0:
                cls = STAR
            die = Die((x0 + x1) / 2, (y0 + y1) / 2, ((x1 - x0) + (y1 - y0)) / 2, cls)
            by_image.setdefault(row["image"], []).append(die)
    tables = []
    for i, name in enumerate(sorted(by_image)):
        if keep is not None and not keep(i, name):
            continue
        img = cv2.imread(os.path.join(root, split, name), cv2.IMREAD_COLOR)
        if img is None:
            raise RuntimeError(f"recipe: cannot read {name}")
        tables.append(Table(name, img, by_image[name], True))
    return tables


def load_synth(folder, limit=0):
    """load_synth reads a folder that `liarsd synth` wrote."""
    by_image = {}
    with open(os.path.join(folder, "labels.csv"), newline="") as f:
        for row in csv.DictReader(f):
            x0, y0, x1, y1 = (float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            cls = int(row["face"]) - 1
            if row["star"] == "true":
                cls = STAR
            if row["uncertain"] == "true":
                cls = UNREADABLE
            die = Die(float(row["x"]), float(row["y"]), ((x1 - x0) + (y1 - y0)) / 2, cls)
            by_image.setdefault(row["image"], []).append(die)
    names = sorted(by_image, key=lambda n: (len(n), n))
    if limit:
        names = names[:limit]
    tables = []
    for name in names:
        img = cv2.imread(os.path.join(folder, "images", name), cv2.IMREAD_COLOR)
        if img is None:
            raise RuntimeError(f"recipe: cannot read {name}")
        tables.append(Table(name, img, by_image[name], False))
    return tables


def rune55_stems(root):
    """rune55_stems returns each image's upstream stem (groups.csv) and the
    sorted list of stems: the set holds each photograph several times
    (turned, mirrored, sheared), so data are held out by stem, never by
    image."""
    stem = {}
    with open(os.path.join(root, "groups.csv"), newline="") as f:
        for row in csv.DictReader(f):
            stem[row["image"]] = row["subset"] + "/" + row["source_stem"]
    return stem, sorted(set(stem.values()))


def load_rune55(root, keep):
    """load_rune55 reads the Rune55 photographs (dice-photos-rune55: the
    labelled photographs' form, plus groups.csv); keep, given (index in the
    sorted stems, stem), says which stems to keep."""
    stem, stems = rune55_stems(root)
    index = {s: i for i, s in enumerate(stems)}
    kept = {name for name, s in stem.items() if keep(index[s], s)}
    return load_photos(root, "train", keep=lambda _i, name: name in kept)


# --- photometric changes: what other cameras, lights and dice do ---


def photometric(img, rng, strong=True):
    """photometric changes an image's colours, light, sharpness and
    compression as another camera, light or set of dice would."""
    if strong and rng.random() < 0.4:
        # Any die colour on any felt: the hue turned, the saturation changed.
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        h = (hsv[:, :, 0].astype(np.int32) + int(rng.integers(180))) % 180
        sat = np.clip(hsv[:, :, 1].astype(np.float32) * rng.uniform(0.5, 1.7), 0, 255)
        hsv = np.dstack([h.astype(np.uint8), sat.astype(np.uint8), hsv[:, :, 2]])
        img = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    out = img.astype(np.float32)
    if rng.random() < 0.3:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.15:
        # A grayscale camera (or a grey frame's weights).
        g = (out * rng.dirichlet([2, 2, 2])).sum(2, keepdims=True)
        out = np.repeat(g, 3, 2)
    gain = rng.uniform(0.65, 1.35, 3) if strong else rng.uniform(0.85, 1.15, 3)
    out = out * gain * rng.uniform(0.6, 1.3) + rng.uniform(-25, 25)
    out = np.clip(out, 0, 255)
    if rng.random() < 0.5:
        gamma = np.exp(rng.uniform(np.log(0.6), np.log(1.6)))
        out = 255.0 * (out / 255.0) ** gamma
    if rng.random() < 0.3:
        # A light from one side: a linear ramp of brightness.
        h, w = out.shape[:2]
        a = rng.uniform(0, 2 * np.pi)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        ramp = ((xs / w - 0.5) * np.cos(a) + (ys / h - 0.5) * np.sin(a)) * rng.uniform(0.2, 0.7)
        out = out * (1 + ramp[:, :, None])
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.35:
        s = rng.uniform(0.3, 1.4)
        out = cv2.GaussianBlur(out, (0, 0), s)
    if rng.random() < 0.4:
        n = rng.normal(0, rng.uniform(1, 9), out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + n, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        q = int(rng.integers(25, 92))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# --- the finder's samples ---


def finder_sample(table, rng, size=256, target=None):
    """finder_sample cuts a size x size training window from table, scaled
    so its dice are about target px (drawn FINDER_MIN to FINDER_MAX when
    None; in one window in ten FINDER_TOO_BIG and more, where no die is
    marked: a die larger than the finder's band is another look's, and
    its pips are not dice), turned by a quarter turn, mirrored and a
    little rotated, and returns the window and its dice (x, y, extent in
    window pixels) within the band."""
    med = table.median_extent() or 40.0
    if target is None:
        if rng.random() < 0.1:
            target = float(np.exp(rng.uniform(np.log(FINDER_TOO_BIG), np.log(FINDER_TOO_BIG * 2.5))))
        else:
            target = float(np.exp(rng.uniform(np.log(FINDER_MIN), np.log(FINDER_MAX))))
    # A photograph is never enlarged more than twice: its dice would be
    # blurs the reader never sees.
    scale = min(target / med, 2.0)
    h, w = table.img.shape[:2]
    if table.dice and rng.random() < 0.75:
        d = table.dice[rng.integers(len(table.dice))]
        cx = d.x + rng.uniform(-0.4, 0.4) * size / scale
        cy = d.y + rng.uniform(-0.4, 0.4) * size / scale
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    angle = 90 * int(rng.integers(4)) + rng.uniform(-8, 8)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    flip = rng.random() < 0.5
    if flip:
        m[0] = -m[0]
        m[0, 2] += size
    # Shrinking uses area sampling, as the reader does (cv2.resize
    # INTER_AREA): first shrink the whole table, then turn at scale 1.
    src = table.img
    if scale < 1:
        src = cv2.resize(table.img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sx, sy = src.shape[1] / w, src.shape[0] / h
        m = m @ np.array([[1 / sx, 0, 0], [0, 1 / sy, 0], [0, 0, 1]], np.float64)
    border = cv2.BORDER_REFLECT_101 if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    value = tuple(int(v) for v in rng.integers(0, 256, 3))
    window = cv2.warpAffine(src, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=border, borderValue=value)
    full = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    full[0, 2] += size / 2 - cx
    full[1, 2] += size / 2 - cy
    if flip:
        full[0] = -full[0]
        full[0, 2] += size
    dice = []
    for d in table.dice:
        x = full[0, 0] * d.x + full[0, 1] * d.y + full[0, 2]
        y = full[1, 0] * d.x + full[1, 1] * d.y + full[1, 2]
        if -2 <= x < size + 2 and -2 <= y < size + 2 and d.extent * scale <= FINDER_TOO_BIG:
            dice.append((x, y, d.extent * scale))
    return window, dice


def finder_targets(dice, size):
    """finder_targets makes the finder's maps for a window: a gaussian peak
    at each centre (CenterNet's), and offset and log extent at each
    centre's cell with a mask."""
    g = size // FINDER_STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((3, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, ext in dice:
        cx, cy = x / FINDER_STRIDE, y / FINDER_STRIDE
        ix, iy = int(np.floor(cx)), int(np.floor(cy))
        sigma = max(0.5, ext / FINDER_STRIDE / 5)
        peak = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma * sigma))
        heat = np.maximum(heat, peak)
        if 0 <= ix < g and 0 <= iy < g:
            heat[iy, ix] = 1.0
            reg[0, iy, ix] = cx - ix
            reg[1, iy, ix] = cy - iy
            reg[2, iy, ix] = np.log(ext / FINDER_SIZE_UNIT)
            mask[iy, ix] = 1.0
    return heat, reg, mask


def to_finder_input(img):
    """to_finder_input is the finder's input scaling, as the Go reader's
    blob: (BGR - 128) / 64, channels first."""
    return (img.astype(np.float32) - 128.0) / 64.0


# --- the face classifier's samples ---


def cut_window(img, x, y, side):
    """cut_window cuts the axis-aligned square of the given side around
    (x, y), the border replicated, and shrinks it to FACE_INPUT with area
    interpolation: exactly what vision/faces.go does."""
    h, w = img.shape[:2]
    half = side / 2
    # Rounded half up, as Go's math.Floor(v + 0.5) (Python's round is to even).
    x0, y0 = int(np.floor(x - half + 0.5)), int(np.floor(y - half + 0.5))
    n = max(2, int(np.floor(side + 0.5)))
    x1, y1 = x0 + n, y0 + n
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return None
    crop = img[cy0:cy1, cx0:cx1]
    if (cx0, cy0, cx1, cy1) != (x0, y0, x1, y1):
        crop = cv2.copyMakeBorder(crop, cy0 - y0, y1 - cy1, cx0 - x0, x1 - cx1, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if n > FACE_INPUT else cv2.INTER_LINEAR
    return cv2.resize(crop, (FACE_INPUT, FACE_INPUT), interpolation=interp)


def standardise(window):
    """standardise subtracts each channel's mean and divides by the pooled
    standard deviation plus 4 (so a flat window stays flat)."""
    f = window.astype(np.float32)
    mean = f.mean((0, 1))
    std = f.std((0, 1))
    pooled = float(np.sqrt((std**2).mean()))
    return (f - mean) / (pooled + 4.0)


def face_window(table, rng, x, y, ext, jitter=True):
    """face_window cuts a training window around (x, y) from a turned,
    mirrored copy of the table's neighbourhood: the turn happens at scale 1
    (no aliasing), the shrink by cut_window as at reading time."""
    side = FACE_WINDOW * ext
    if jitter:
        side *= float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    r = int(np.ceil(side * 0.75)) + 2
    angle = rng.uniform(0, 360) if jitter else 0.0
    m = cv2.getRotationMatrix2D((x, y), angle, 1.0)
    m[0, 2] += r - x
    m[1, 2] += r - y
    if jitter and rng.random() < 0.5:
        m[0] = -m[0]
        m[0, 2] += 2 * r
    patch = cv2.warpAffine(table.img, m, (2 * r, 2 * r), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cut_window(patch, r, r, side)


def face_sample(table, rng, hard=None):
    """face_sample draws one window and its class from table: mostly a
    die (its centre shifted by up to 0.15 of its extent), sometimes a
    place on no die, half a die, or one of hard's false finds."""
    u = rng.random()
    med = table.median_extent() or 40.0
    if table.dice and u < 0.68:
        d = table.dice[rng.integers(len(table.dice))]
        if d.extent < MIN_READABLE:
            # Too small to read: the reader never trusts it, and learning
            # a face from its few pixels teaches guessing.
            return None, None
        jx, jy = rng.uniform(-0.15, 0.15, 2) * d.extent
        return face_window(table, rng, d.x + jx, d.y + jy, d.extent), d.cls
    if hard and u < 0.80:
        x, y, ext = hard[rng.integers(len(hard))]
        return face_window(table, rng, x, y, ext), NONE
    if table.dice and u < 0.86:
        # A part of a die (a pip, a corner of its face) as a finder looking
        # for smaller dice marks it: a die inside a bigger die is a pip.
        d = table.dice[rng.integers(len(table.dice))]
        if d.extent >= 24:
            jx, jy = rng.uniform(-0.3, 0.3, 2) * d.extent
            ext = d.extent * rng.uniform(0.15, 0.45)
            return face_window(table, rng, d.x + jx, d.y + jy, ext), NONE
    if table.dice and u < 0.90:
        # Half a die: the window centred on its edge or corner.
        d = table.dice[rng.integers(len(table.dice))]
        a = rng.uniform(0, 2 * np.pi)
        r = rng.uniform(0.5, 0.85) * d.extent
        x, y = d.x + r * np.cos(a), d.y + r * np.sin(a)
        if all(np.hypot(x - o.x, y - o.y) > 0.45 * o.extent for o in table.dice):
            return face_window(table, rng, x, y, d.extent), NONE
    h, w = table.img.shape[:2]
    for _ in range(20):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if all(np.hypot(x - o.x, y - o.y) > 0.6 * o.extent for o in table.dice):
            ext = med * float(np.exp(rng.uniform(np.log(0.6), np.log(1.6))))
            return face_window(table, rng, x, y, ext), NONE
    return None, None
