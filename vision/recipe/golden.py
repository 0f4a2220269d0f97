#!/usr/bin/env python3
"""Writes testdata/vision/windows.json: the face classifier's input for a few
windows of testdata/vision/window.png, as the recipe cuts them. The Go
reader's TestWindowsMatchTheRecipe cuts the same windows and compares, so
the reader sees exactly what the networks learned from.

    python3 vision/recipe/golden.py   # after changing data.py's windows
"""

import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import data  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
IMAGE = os.path.join(ROOT, "testdata", "vision", "window.png")
OUT = os.path.join(ROOT, "testdata", "vision", "windows.json")

# (x, y, side): inside the image, shrunk; at its corner, padded; enlarged.
WINDOWS = [(60.3, 41.7, 45.2), (4.5, 78.2, 30.6), (50.0, 50.0, 20.0)]


def main():
    if not os.path.exists(IMAGE):
        rng = np.random.default_rng(3)
        img = np.zeros((90, 110, 3), np.uint8)
        img[:] = (40, 120, 60)
        cv2.rectangle(img, (35, 20), (85, 65), (235, 235, 230), -1)
        for x, y in ((48, 32), (72, 54), (60, 43)):
            cv2.circle(img, (x, y), 5, (20, 20, 20), -1)
        img = np.clip(img.astype(np.int16) + rng.integers(-12, 13, img.shape), 0, 255).astype(np.uint8)
        cv2.imwrite(IMAGE, img)
    img = cv2.imread(IMAGE, cv2.IMREAD_COLOR)
    out = []
    for x, y, side in WINDOWS:
        w = data.standardise(data.cut_window(img, x, y, side)).transpose(2, 0, 1)
        out.append({"x": x, "y": y, "side": side, "planes": [round(float(v), 4) for v in w.ravel()]})
    with open(OUT, "w") as f:
        json.dump(out, f)
        f.write("\n")


if __name__ == "__main__":
    main()
