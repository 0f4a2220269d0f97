#!/usr/bin/env python3
"""Trains the dice reader's networks and exports them to ONNX.

    python3 vision/recipe/train.py --photos ../shared/data/dice-photos \
        --rune55 ../shared/data/dice-photos-rune55 --synth build/synth \
        --synth-held build/synth-held --out vision/model --work build/train

The finder learns from windows of the training photographs and synthetic
tables scaled so dice are FINDER_MIN to FINDER_MAX px (and, in a tenth of
the windows, dice too big for its band, marked as nothing); the face
classifier from windows around each die and around places that are no
die: the table, half a die, a part of a die (a pip), clutter, and the
finder's own false finds on the training tables. One photograph in five
of train/ and one Rune55 stem in five are held out: they never train,
the learning curves are measured on them, and the reader's bars are
chosen on them (liarsd readtrain).

Training is resumable: every --checkpoint-every steps each network's
state (weights, their running average, optimiser, schedule, step) is
saved under --work, and a run started again with the same arguments goes
on from the last checkpoint (--fresh starts over). Every --eval-every
steps the held-out sets are measured and a row is added to the learning
curve (--work/curve.csv, copied beside the networks at the end).

Every random choice is seeded (--seed), and batch i is drawn from a
generator seeded by (seed, i) alone, so the data do not depend on worker
timing or on where a run was resumed. It runs on the CPU and on CUDA when
torch sees a GPU (docs/vision.md says how long each takes).
"""

import argparse
import copy
import csv
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import data  # noqa: E402
import export  # noqa: E402
from nets import FACE_CLASSES, FINDER_SIZE_UNIT, FINDER_STRIDE, FaceNet, Finder  # noqa: E402


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


class Sources:
    """Sources draws a training table: a table's own examples first (with
    house_share), else the labelled photographs, the Rune55 photographs or
    a synthetic table, by their shares."""

    def __init__(self, photos, rune, synth, house, args):
        self.house = house
        self.house_share = args.house_share if house else 0.0
        shares = [(photos, args.photo_share), (rune, args.rune_share), (synth, max(0.0, 1 - args.photo_share - args.rune_share))]
        shares = [(pool, w) for pool, w in shares if pool and w > 0] or [(pool, 1.0) for pool in (photos, rune, synth) if pool]
        if not shares and not house:
            raise SystemExit("recipe: no training tables")
        self.pools = [pool for pool, _ in shares]
        weights = np.array([w for _, w in shares])
        self.cum = np.cumsum(weights / weights.sum()) if shares else np.ones(0)

    def pick(self, rng):
        if self.house and (rng.random() < self.house_share or not self.pools):
            return self.house[rng.integers(len(self.house))]
        u = rng.random()
        k = min(int(np.searchsorted(self.cum, u, side="right")), len(self.pools) - 1)
        pool = self.pools[k]
        return pool[rng.integers(len(pool))]


def focal_loss(pred, gt):
    """CenterNet's penalty-reduced focal loss on the centre map."""
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


class Curve:
    """Curve appends the learning curves' rows to a CSV file."""

    FIELDS = ["net", "step", "samples", "set", "dice", "right", "sure_right", "sure_wrong", "found", "false", "minutes"]

    def __init__(self, path):
        self.path = path

    def add(self, row):
        new = not os.path.exists(self.path)
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, self.FIELDS)
            if new:
                w.writeheader()
            w.writerow({k: row.get(k, "") for k in self.FIELDS})

    def drop_after(self, net, step):
        """drop_after removes a net's rows past step: a run resumed from a
        checkpoint measures those steps again."""
        if not os.path.exists(self.path):
            return
        with open(self.path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if not (r["net"] == net and int(r["step"]) > step)]
        with open(self.path, "w", newline="") as f:
            w = csv.DictWriter(f, self.FIELDS)
            w.writeheader()
            w.writerows(rows)


class EMA:
    """EMA keeps a running average of a network's weights (its buffers
    copied): the average generalises better than the last step's weights
    and is what is evaluated and exported."""

    def __init__(self, net, decay):
        self.net = copy.deepcopy(net).eval()
        self.decay = decay
        for p in self.net.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, net, step):
        d = min(self.decay, (1 + step) / (10 + step))
        for a, b in zip(self.net.parameters(), net.parameters()):
            a.mul_(d).add_(b.detach(), alpha=1 - d)
        for a, b in zip(self.net.buffers(), net.buffers()):
            a.copy_(b)


def train(name, net, make, loss_fn, steps, lr, wd, args, device, evaluate):
    """train trains net on batches from make for steps steps, resuming from
    its checkpoint under args.work, and returns the weights' running
    average."""
    ckpt = os.path.join(args.work, f"{name}-checkpoint.pt")
    curve = Curve(os.path.join(args.work, "curve.csv"))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=wd)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps, pct_start=max(0.05, 3 / steps))
    ema = EMA(net, args.ema)
    first, spent, shorten = 0, 0.0, None
    if os.path.exists(ckpt) and not args.fresh:
        state = torch.load(ckpt, map_location=device)
        shorten = state.get("shortened") or (state["steps"] != steps and args.shorten and state["step"] < steps)
        if state["steps"] != steps and not shorten:
            raise SystemExit(f"recipe: {ckpt} is of a {state['steps']}-step run, not {steps}: --fresh starts over, --shorten ends it sooner")
        net.load_state_dict(state["net"])
        ema.net.load_state_dict(state["ema"])
        opt.load_state_dict(state["opt"])
        first, spent = state["step"], state.get("seconds", 0.0)
        if shorten:
            # The one-cycle schedule cannot end early, so the rest of a
            # shortened run anneals from the learning rate it had reached
            # to nothing on a half cosine over the steps left.
            at, rate = shorten if isinstance(shorten, list) else (first, opt.param_groups[0]["lr"])
            for g in opt.param_groups:
                g["initial_lr"] = rate
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda i: 0.5 * (1 + math.cos(math.pi * min(1.0, i / max(1, steps - at)))))
            if state.get("shortened"):
                sched.load_state_dict(state["sched"])
            shorten = [at, rate]
            log(f"{name}: the {state['steps']}-step run ends at {steps}, annealing from lr {rate:.2e} at step {at}")
        else:
            sched.load_state_dict(state["sched"])
        log(f"{name}: resumed at step {first}/{steps} ({spent / 60:.0f} min trained)")
        curve.drop_after(name, first)
    if first >= steps:
        return ema.net
    loader = torch.utils.data.DataLoader(Batches(make, args.seed + (name == "faces"), steps, first), batch_size=None, num_workers=args.workers)
    net.train()
    t0 = time.time() - spent

    def save(step):
        tmp = ckpt + ".tmp"
        torch.save({"net": net.state_dict(), "ema": ema.net.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "step": step, "steps": steps, "seconds": time.time() - t0,
                    "shortened": shorten}, tmp)
        os.replace(tmp, ckpt)

    for step, batch in enumerate(loader, start=first):
        batch = [b.to(device) for b in batch]
        loss, parts = loss_fn(net, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        ema.update(net, step)
        done = step + 1
        if step % 100 == 0 or done == steps:
            log(f"{name} {step}/{steps} loss {loss.item():.3f} {parts} {time.time() - t0:.0f}s")
        if done % args.eval_every == 0 or done == steps:
            for row in evaluate(ema.net):
                row.update(net=name, step=done, minutes=f"{(time.time() - t0) / 60:.1f}")
                curve.add(row)
                log(f"{name} curve: {row}")
            net.train()
        if done % args.checkpoint_every == 0 or done == steps:
            save(done)
        if name == "finder" and done == args.mine_at:
            torch.save(ema.net.state_dict(), os.path.join(args.work, f"finder-{done}.pt"))
    return ema.net


def train_finder(args, sources, device, evaluate):
    size = args.finder_window

    def make(rng):
        xs, heats, regs, masks = [], [], [], []
        for _ in range(args.finder_batch):
            t = sources.pick(rng)
            win, dice = data.finder_sample(t, rng, size)
            win = data.photometric(win, rng)
            h, r, m = data.finder_targets(dice, size)
            xs.append(data.to_finder_input(win).transpose(2, 0, 1))
            heats.append(h[None])
            regs.append(r)
            masks.append(m[None])
        return tuple(torch.from_numpy(np.stack(a)) for a in (xs, heats, regs, masks))

    def loss_fn(net, batch):
        x, heat, reg, mask = batch
        out = net(x)
        lh = focal_loss(out[:, :1], heat)
        n = mask.sum().clamp(min=1)
        lo = (F.l1_loss(out[:, 1:3], reg[:, :2], reduction="none") * mask).sum() / n
        ls = (F.l1_loss(out[:, 3:4], reg[:, 2:3], reduction="none") * mask).sum() / n
        return lh + lo + ls, f"(centre {lh.item():.3f} offset {lo.item():.3f} size {ls.item():.3f})"

    torch.manual_seed(args.seed)
    net = Finder().to(device)
    return train("finder", net, make, loss_fn, args.finder_steps, args.lr, 1e-4, args, device, evaluate)


@torch.no_grad()
def find(net, img, scale, device, threshold=0.3):
    """find runs the finder on img scaled by scale, as the Go reader does,
    and returns (x, y, extent, probability) in img's pixels."""
    h, w = img.shape[:2]
    sw, sh = max(32, int(round(w * scale / 16)) * 16), max(32, int(round(h * scale / 16)) * 16)
    interp = data.cv2.INTER_AREA if scale <= 1 else data.cv2.INTER_LINEAR
    small = data.cv2.resize(img, (sw, sh), interpolation=interp)
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
    """mine_hard runs the finder over each training table at the scale its
    dice ask for and keeps, per table, the places it marks a die where no
    label is."""
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


def train_faces(args, sources, hard, device, evaluate):
    def make(rng):
        xs, ys = [], []
        while len(xs) < args.face_batch:
            t = sources.pick(rng)
            win, cls = data.face_sample(t, rng, hard.get(t.name))
            if win is None:
                continue
            win = data.photometric(win, rng)
            xs.append(data.standardise(win).transpose(2, 0, 1))
            ys.append(cls)
        return torch.from_numpy(np.stack(xs)), torch.tensor(ys)

    def loss_fn(net, batch):
        x, y = batch
        loss = F.cross_entropy(net(x), y)
        return loss, ""

    torch.manual_seed(args.seed + 1)
    net = FaceNet(args.face_widths).to(device)
    if args.faces_init:
        # Fine-tuning: start from a trained face network (a table's own
        # examples on top of what the shipped network learned).
        net.load_state_dict(torch.load(args.faces_init, map_location=device))
    return train("faces", net, make, loss_fn, args.face_steps, args.lr, 5e-4, args, device, evaluate)


@torch.no_grad()
def evaluate_faces(net, tables, device):
    """evaluate_faces reads every labelled die of at least MIN_READABLE px
    at its label, unturned, and returns (probability, right, label,
    likeliest) for each."""
    rng = np.random.default_rng(0)
    pairs = []
    for t in tables:
        dice = [d for d in t.dice if d.extent >= data.MIN_READABLE]
        if not dice:
            continue
        wins = [data.face_window(t, rng, d.x, d.y, d.extent, jitter=False) for d in dice]
        x = torch.from_numpy(np.stack([data.standardise(w).transpose(2, 0, 1) for w in wins])).to(device)
        p = F.softmax(net(x), 1).cpu().numpy()
        for d, row in zip(dice, p):
            k = int(row.argmax())
            pairs.append((float(row[k]), k == d.cls, d.cls, k))
    return pairs


def face_row(name, pairs):
    return {"set": name, "dice": len(pairs), "right": sum(r for _, r, *_ in pairs),
            "sure_right": sum(1 for p, r, *_ in pairs if r and p >= 0.99),
            "sure_wrong": sum(1 for p, r, *_ in pairs if not r and p >= 0.9)}


def reliability(pairs, out=sys.stdout):
    bins = [0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0001]
    print("probability      dice  right", file=out)
    for lo, hi in zip(bins, bins[1:]):
        sel = [r for p, r, *_ in pairs if lo <= p < hi]
        if sel:
            print(f"{lo:.2f}-{min(hi, 1):.2f}  {len(sel):8d}  {100 * np.mean(sel):6.2f}%", file=out)


def parse_widths(s):
    w = tuple(int(v) for v in s.split(","))
    if len(w) != 4 or min(w) < 1:
        raise argparse.ArgumentTypeError("four widths, e.g. 24,48,96,144")
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--photos", default="../shared/data/dice-photos")
    ap.add_argument("--rune55", default="", help="the Rune55 photographs (dice-photos-rune55); every fifth stem held out")
    ap.add_argument("--synth", action="append", default=[], help="a folder liarsd synth wrote (repeatable)")
    ap.add_argument("--synth-limit", type=int, default=0)
    ap.add_argument("--synth-held", default="", help="a folder liarsd synth wrote from other seeds, measured in the learning curve")
    ap.add_argument("--out", default="vision/model")
    ap.add_argument("--work", default="build/train", help="checkpoints and the learning curve")
    ap.add_argument("--fresh", action="store_true", help="start over, ignoring checkpoints")
    ap.add_argument("--shorten", action="store_true", help="end a resumed run at the given steps, annealing the learning rate over the steps left")
    ap.add_argument("--stage", choices=["all", "finder", "faces"], default="all", help="finder: train the finder alone; faces: the face network alone, its hard negatives mined with --finder or the finder's weights at --mine-at steps (training the finder first where there are none), beside a --stage finder run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--finder-steps", type=int, default=3000)
    ap.add_argument("--finder-batch", type=int, default=16)
    ap.add_argument("--finder-window", type=int, default=160)
    ap.add_argument("--face-steps", type=int, default=4000)
    ap.add_argument("--face-batch", type=int, default=128)
    ap.add_argument("--face-widths", type=parse_widths, default=(24, 48, 96, 144), help="the face network's widths (the shipped network's by default: a house fine-tune starts from it)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--ema", type=float, default=0.999, help="decay of the weights' running average")
    ap.add_argument("--photo-share", type=float, default=0.5)
    ap.add_argument("--rune-share", type=float, default=0.0)
    ap.add_argument("--target", type=float, default=16.0, help="die extent in px the finder is measured and mined at")
    ap.add_argument("--mine-at", type=int, default=2000, help="the finder's step whose weights mine the face network's hard negatives")
    ap.add_argument("--eval-every", type=int, default=1000)
    ap.add_argument("--checkpoint-every", type=int, default=250)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (0: every core; on a shared or small machine one is often fastest)")
    ap.add_argument("--finder", default="", help="skip the finder's training: load this state dict")
    ap.add_argument("--faces-init", default="", help="start the face network from this state dict (fine-tuning, e.g. vision/model/faces.pt)")
    ap.add_argument("--house", action="append", default=[], help="a table's examples folder (camera.learn; the photographs' form), trained on but every fifth image, which is held out (repeatable)")
    ap.add_argument("--house-share", type=float, default=0.5, help="share of training draws from the --house examples")
    args = ap.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_num_threads(args.threads or os.cpu_count())
    log(f"device {device}, {torch.get_num_threads()} threads, torch {torch.__version__}")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    photos, held = [], []
    if args.photos:
        photos = data.load_photos(args.photos, "train", keep=lambda i, n: not holdout(i, n))
        held = data.load_photos(args.photos, "train", keep=holdout)
    rune, rune_held = [], []
    if args.rune55:
        rune = data.load_rune55(args.rune55, keep=lambda i, s: not holdout(i, s))
        rune_held = data.load_rune55(args.rune55, keep=holdout)
    house, house_held = [], []
    for folder in args.house:
        house.extend(data.load_photos(folder, "train", keep=lambda i, n: not holdout(i, n)))
        house_held += data.load_photos(folder, "train", keep=holdout)
    synth = []
    for folder in args.synth:
        synth += data.load_synth(folder, args.synth_limit)
    synth_held = data.load_synth(args.synth_held) if args.synth_held else []
    log(f"{len(photos)} training photographs ({len(held)} held out), {len(rune)} Rune55 ({len(rune_held)} held out), "
        f"{len(synth)} synthetic tables ({len(synth_held)} held out), {len(house)} house examples ({len(house_held)} held out)")
    sources = Sources(photos, rune, synth, house, args)
    held_sets = [(n, t) for n, t in (("photos", held), ("rune55", rune_held), ("synth", synth_held), ("house", house_held)) if t]

    def finder_eval(net):
        rows = []
        for name, tables in held_sets:
            f, n, false = evaluate_finder(net, tables, device, args.target)
            rows.append({"set": name, "dice": n, "found": f, "false": false})
        return rows

    def faces_eval(net):
        return [face_row(name, evaluate_faces(net, tables, device)) for name, tables in held_sets]

    def load_finder(path):
        net = Finder().to(device)
        net.load_state_dict(torch.load(path, map_location=device))
        return net.eval()

    # The faces' hard negatives are mined with the finder as it stood at
    # --mine-at steps, so that the face network may train beside the
    # finder's last steps (--stage faces) and a whole run gives the same.
    mine_with = os.path.join(args.work, f"finder-{args.mine_at}.pt")
    finder = None
    if args.finder:
        finder = load_finder(args.finder)
        mine_with = args.finder
    elif args.stage != "faces" or not os.path.exists(mine_with):
        finder = train_finder(args, sources, device, finder_eval)
        torch.save(finder.state_dict(), os.path.join(args.out, "finder.pt"))
        export.finder(finder.cpu().eval(), os.path.join(args.out, "finder.onnx"))
        finder.to(device)
        for row in finder_eval(finder):
            log(f"finder on held-out {row['set']}: {row['found']}/{row['dice']} dice found, {row['false']} false finds")
    if args.stage == "finder":
        return

    hard_path = os.path.join(args.work, "hard.json")
    if os.path.exists(hard_path) and not args.fresh:
        with open(hard_path) as f:
            hard = {k: [tuple(v) for v in vs] for k, vs in json.load(f).items()}
    else:
        miner = load_finder(mine_with) if os.path.exists(mine_with) else finder
        hard = mine_hard(miner, photos + rune + synth + house, device, args.target)
        with open(hard_path, "w") as f:
            json.dump(hard, f)
    log(f"hard negatives: {sum(len(v) for v in hard.values())} on {len(hard)} tables")
    faces = train_faces(args, sources, hard, device, faces_eval)
    torch.save(faces.state_dict(), os.path.join(args.out, "faces.pt"))
    for name, tables in held_sets:
        pairs = evaluate_faces(faces, tables, device)
        right = sum(r for _, r, *_ in pairs)
        log(f"faces on held-out {name} at their labels: {right}/{len(pairs)} likeliest right")
        reliability(pairs)

    export.faces(faces.cpu().eval(), os.path.join(args.out, "faces.onnx"))
    shutil.copy(os.path.join(args.work, "curve.csv"), os.path.join(args.out, "curve.csv"))
    with open(os.path.join(args.out, "recipe.json"), "w") as f:
        json.dump({"args": vars(args), "classes": FACE_CLASSES, "torch": torch.__version__, "device": device}, f, indent=1)
        f.write("\n")
    log("done")


if __name__ == "__main__":
    main()
