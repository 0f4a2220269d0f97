#!/usr/bin/env python3
"""Trains the dice reader's networks and exports them to ONNX.

    python3 vision/recipe/train.py --photos ../shared/data/dice-photos \
        --synth /tmp/synth --out vision/model

The finder learns from windows of the training photographs and synthetic
tables scaled so dice are 9 to 30 px; the face classifier from windows
around each die (and around places that are no die: the table, half a
die, clutter, and the finder's own false finds on the training tables).
One photograph in five of train/ is held out: it never trains, and the
reader's thresholds are chosen on it (liarsd readtrain -calibrate).

Every random choice is seeded (--seed): on one machine with the same
torch and thread count a run replays exactly. It runs on the CPU (2 cores:
see docs/vision.md for how long) and on CUDA when torch sees a GPU.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import data  # noqa: E402
import export  # noqa: E402
from nets import FACE_CLASSES, FINDER_SIZE_UNIT, FINDER_STRIDE, NONE, FaceNet, Finder  # noqa: E402


def holdout(i, _name):
    return i % 5 == 4


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


class Batches(torch.utils.data.IterableDataset):
    """Batches yields batch i from a generator seeded by (seed, i) alone, so
    the data do not depend on worker timing."""

    def __init__(self, make, seed, steps, first=0):
        self.make, self.seed, self.steps, self.first = make, seed, steps, first

    def __iter__(self):
        for i in range(self.first, self.steps):
            yield self.make(np.random.default_rng([self.seed, i]))


HOUSE = []  # a table's own examples (--house), drawn first with --house-share
HOUSE_SHARE = 0.0


def pick_table(photos, synth, rng, photo_share):
    if HOUSE and rng.random() < HOUSE_SHARE:
        return HOUSE[rng.integers(len(HOUSE))]
    if synth and (not photos or rng.random() >= photo_share):
        return synth[rng.integers(len(synth))]
    return photos[rng.integers(len(photos))]


def focal_loss(pred, gt):
    """CenterNet's penalty-reduced focal loss on the centre map."""
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def train_finder(args, photos, synth, device):
    size = args.finder_window

    def make(rng):
        xs, heats, regs, masks = [], [], [], []
        for _ in range(args.finder_batch):
            t = pick_table(photos, synth, rng, args.photo_share)
            win, dice = data.finder_sample(t, rng, size)
            win = data.photometric(win, rng)
            h, r, m = data.finder_targets(dice, size)
            xs.append(data.to_finder_input(win).transpose(2, 0, 1))
            heats.append(h[None])
            regs.append(r)
            masks.append(m[None])
        return tuple(torch.from_numpy(np.stack(a)) for a in (xs, heats, regs, masks))

    torch.manual_seed(args.seed)
    net = Finder().to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.finder_steps, pct_start=max(0.05, 3 / args.finder_steps))
    loader = torch.utils.data.DataLoader(Batches(make, args.seed, args.finder_steps), batch_size=None, num_workers=args.workers)
    net.train()
    t0 = time.time()
    for step, (x, heat, reg, mask) in enumerate(loader):
        x, heat, reg, mask = x.to(device), heat.to(device), reg.to(device), mask.to(device)
        out = net(x)
        lh = focal_loss(out[:, :1], heat)
        n = mask.sum().clamp(min=1)
        lo = (F.l1_loss(out[:, 1:3], reg[:, :2], reduction="none") * mask).sum() / n
        ls = (F.l1_loss(out[:, 3:4], reg[:, 2:3], reduction="none") * mask).sum() / n
        loss = lh + lo + ls
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == args.finder_steps - 1:
            log(f"finder {step}/{args.finder_steps} loss {loss.item():.3f} (centre {lh.item():.3f} offset {lo.item():.3f} size {ls.item():.3f}) {time.time() - t0:.0f}s")
    net.eval()
    return net


@torch.no_grad()
def find(net, img, target, device, threshold=0.3):
    """find runs the finder on img scaled so its dice are about target px
    (target/extent given as the scale), as the Go reader does, and returns
    (x, y, extent, probability) in img's pixels."""
    h, w = img.shape[:2]
    scale = target
    sw, sh = max(16, int(round(w * scale / 16)) * 16), max(16, int(round(h * scale / 16)) * 16)
    small = data.cv2.resize(img, (sw, sh), interpolation=data.cv2.INTER_AREA)
    x = torch.from_numpy(data.to_finder_input(small).transpose(2, 0, 1)[None]).to(device)
    out = net(x)[0].cpu().numpy()
    heat = out[0]
    peaks = F.max_pool2d(torch.from_numpy(heat)[None, None], 3, 1, 1)[0, 0].numpy()
    found = []
    fx, fy = w / sw, h / sh
    for iy, ix in zip(*np.nonzero((heat >= peaks) & (heat > threshold))):
        cx = (ix + out[1, iy, ix]) * FINDER_STRIDE
        cy = (iy + out[2, iy, ix]) * FINDER_STRIDE
        ext = np.exp(out[3, iy, ix]) * FINDER_SIZE_UNIT
        found.append((cx * fx, cy * fy, ext * (fx + fy) / 2, float(heat[iy, ix])))
    return found


def mine_hard(net, tables, device, target):
    """mine_hard runs the finder over each training table and keeps, per
    table, the places it marks a die where no label is."""
    hard = {}
    for t in tables:
        med = t.median_extent() or 40.0
        found = find(net, t.img, target / med, device, threshold=0.2)
        false = [(x, y, e) for x, y, e, _ in found if all(np.hypot(x - d.x, y - d.y) > 0.5 * d.extent for d in t.dice)]
        if false:
            hard[t.name] = false
    return hard


def evaluate_finder(net, tables, device, target):
    found_n, labelled, false = 0, 0, 0
    for t in tables:
        med = t.median_extent() or 40.0
        found = find(net, t.img, target / med, device)
        labelled += len(t.dice)
        for d in t.dice:
            if any(np.hypot(x - d.x, y - d.y) < 0.5 * d.extent for x, y, _, _ in found):
                found_n += 1
        false += sum(1 for x, y, _, _ in found if all(np.hypot(x - d.x, y - d.y) > 0.5 * d.extent for d in t.dice))
    return found_n, labelled, false


def train_faces(args, photos, synth, hard, device):
    def make(rng):
        xs, ys = [], []
        while len(xs) < args.face_batch:
            t = pick_table(photos, synth, rng, args.photo_share)
            win, cls = data.face_sample(t, rng, hard.get(t.name))
            if win is None:
                continue
            win = data.photometric(win, rng)
            xs.append(data.standardise(win).transpose(2, 0, 1))
            ys.append(cls)
        return torch.from_numpy(np.stack(xs)), torch.tensor(ys)

    torch.manual_seed(args.seed + 1)
    net = FaceNet().to(device)
    if args.faces_init:
        # Fine-tuning: start from a trained face network (a table's own
        # examples on top of what the shipped network learned).
        net.load_state_dict(torch.load(args.faces_init, map_location=device))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.face_steps, pct_start=max(0.05, 3 / args.face_steps))
    loader = torch.utils.data.DataLoader(Batches(make, args.seed + 1, args.face_steps), batch_size=None, num_workers=args.workers)
    net.train()
    t0 = time.time()
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == args.face_steps - 1:
            log(f"faces {step}/{args.face_steps} loss {loss.item():.3f} {time.time() - t0:.0f}s")
    net.eval()
    return net


@torch.no_grad()
def evaluate_faces(net, tables, device):
    """evaluate_faces reads every labelled die at its label, unturned, and
    returns (probability, right) pairs and the confusion counts."""
    rng = np.random.default_rng(0)
    pairs = []
    for t in tables:
        wins = [data.face_window(t, rng, d.x, d.y, d.extent, jitter=False) for d in t.dice]
        x = torch.from_numpy(np.stack([data.standardise(w).transpose(2, 0, 1) for w in wins])).to(device)
        p = F.softmax(net(x), 1).cpu().numpy()
        for d, row in zip(t.dice, p):
            k = int(row.argmax())
            pairs.append((float(row[k]), k == d.cls, d.cls, k))
    return pairs


def reliability(pairs, out=sys.stdout):
    bins = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0001]
    print("probability      dice  right", file=out)
    for lo, hi in zip(bins, bins[1:]):
        sel = [r for p, r, *_ in pairs if lo <= p < hi]
        if sel:
            print(f"{lo:.2f}-{min(hi, 1):.2f}  {len(sel):8d}  {100 * np.mean(sel):6.2f}%", file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", default="../shared/data/dice-photos")
    ap.add_argument("--synth", action="append", default=[], help="a folder liarsd synth wrote (repeatable)")
    ap.add_argument("--synth-limit", type=int, default=0)
    ap.add_argument("--out", default="vision/model")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--finder-steps", type=int, default=3000)
    ap.add_argument("--finder-batch", type=int, default=16)
    ap.add_argument("--finder-window", type=int, default=160)
    ap.add_argument("--face-steps", type=int, default=4000)
    ap.add_argument("--face-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--photo-share", type=float, default=0.5)
    ap.add_argument("--target", type=float, default=16.0, help="die extent in px the finder reads at")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (0: every core; on a shared or small machine one is often fastest)")
    ap.add_argument("--finder", default="", help="skip the finder's training: load this state dict")
    ap.add_argument("--faces-init", default="", help="start the face network from this state dict (fine-tuning, e.g. vision/model/faces.pt)")
    ap.add_argument("--house", action="append", default=[], help="a table's examples folder (camera.learn; the photographs' form), trained on but every fifth image, which is held out (repeatable)")
    ap.add_argument("--house-share", type=float, default=0.5, help="share of training draws from the --house examples")
    args = ap.parse_args()
    global HOUSE_SHARE

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(args.threads or os.cpu_count())
    log(f"device {device}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    photos, held = [], []
    if args.photos:
        photos = data.load_photos(args.photos, "train", keep=lambda i, n: not holdout(i, n))
        held = data.load_photos(args.photos, "train", keep=holdout)
    house_held = []
    for folder in args.house:
        HOUSE.extend(data.load_photos(folder, "train", keep=lambda i, n: not holdout(i, n)))
        house_held += data.load_photos(folder, "train", keep=holdout)
    HOUSE_SHARE = args.house_share if HOUSE else 0.0
    if args.house:
        log(f"{len(HOUSE)} house examples to train on, {len(house_held)} held out, drawn {100 * HOUSE_SHARE:.0f}% of the time")
    synth = []
    for folder in args.synth:
        synth += data.load_synth(folder, args.synth_limit)
    log(f"{len(photos)} training photographs, {len(held)} held out, {len(synth)} synthetic tables")
    os.makedirs(args.out, exist_ok=True)

    if args.finder:
        finder = Finder().to(device)
        finder.load_state_dict(torch.load(args.finder, map_location=device))
        finder.eval()
    else:
        finder = train_finder(args, photos, synth, device)
        torch.save(finder.state_dict(), os.path.join(args.out, "finder.pt"))
    if held:
        f, n, false = evaluate_finder(finder, held, device, args.target)
        log(f"finder on held-out photographs: {f}/{n} dice found, {false} false finds")

    hard = mine_hard(finder, photos + synth + HOUSE, device, args.target)
    log(f"hard negatives: {sum(len(v) for v in hard.values())} on {len(hard)} tables")
    faces = train_faces(args, photos, synth, hard, device)
    torch.save(faces.state_dict(), os.path.join(args.out, "faces.pt"))
    for name, tables in (("held-out photographs", held), ("held-out house examples", house_held)):
        if not tables:
            continue
        pairs = evaluate_faces(faces, tables, device)
        right = sum(r for _, r, *_ in pairs)
        log(f"faces on {name} at their labels: {right}/{len(pairs)} likeliest right")
        reliability(pairs)

    export.finder(finder.cpu(), os.path.join(args.out, "finder.onnx"))
    export.faces(faces.cpu(), os.path.join(args.out, "faces.onnx"))
    with open(os.path.join(args.out, "recipe.json"), "w") as f:
        json.dump({"args": vars(args), "classes": FACE_CLASSES, "torch": torch.__version__, "device": device}, f, indent=1)
        f.write("\n")
    log("done")


if __name__ == "__main__":
    main()
