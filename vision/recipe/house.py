"""house.py turns a folder `liarsd synth -house ...` wrote into a table's
examples folder (the form camera.learn writes: labels.csv with split,
image, face and box, images under the split's folder, examples.json), the
first --train scenes as split train and the rest as split test, to measure
what a table's own examples do to the reader's rate on its dice
(docs/vision.md, "A table that learns its dice"):

    python3 vision/recipe/house.py --synth build/house-synth --out build/house --train 40
"""

import argparse
import csv
import json
import os
import shutil


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synth", required=True, help="a folder liarsd synth wrote")
    ap.add_argument("--out", required=True, help="the examples folder to write")
    ap.add_argument("--train", type=int, required=True, help="scenes (in seed order) for split train; the rest are split test")
    args = ap.parse_args()

    with open(os.path.join(args.synth, "labels.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    names = sorted({r["image"] for r in rows}, key=lambda n: (len(n), n))
    split = {n: ("train" if i < args.train else "test") for i, n in enumerate(names)}
    for s in ("train", "test"):
        os.makedirs(os.path.join(args.out, s), exist_ok=True)
    for n in names:
        shutil.copyfile(os.path.join(args.synth, "images", n), os.path.join(args.out, split[n], n))
    star = False
    with open(os.path.join(args.out, "labels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["split", "image", "face", "xmin", "ymin", "xmax", "ymax"])
        for r in rows:
            if r["uncertain"] == "true":
                continue  # a cocked or hidden die: no face to learn
            star = star or r["star"] == "true"
            w.writerow([split[r["image"]], r["image"], r["face"], r["xmin"], r["ymin"], r["xmax"], r["ymax"]])
    with open(os.path.join(args.out, "examples.json"), "w") as f:
        json.dump({"table": "house", "star_dice": star}, f, indent=2)
        f.write("\n")
    print(f"{sum(1 for n in names if split[n] == 'train')} train and {sum(1 for n in names if split[n] == 'test')} test scenes in {args.out}")


if __name__ == "__main__":
    main()
