"""The reader's two networks: the dice finder and the face classifier.

Both use only what OpenCV 4.6's DNN module runs from ONNX (opset 11):
Conv (plain and depthwise), BatchNorm (folded into the convolutions at
export), ReLU, Add, nearest Resize, Sigmoid, GlobalAveragePool, Flatten,
Gemm and Softmax.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

# FACE_CLASSES are the face classifier's outputs, in order. "none" is a
# window on no die (table, clutter, half a die); "unreadable" a die whose
# top face cannot be read (cocked against another, half hidden).
FACE_CLASSES = ["1", "2", "3", "4", "5", "6", "star", "none", "unreadable"]
STAR, NONE, UNREADABLE = 6, 7, 8

# FACE_INPUT is the side of the classifier's window in pixels, and
# FACE_WINDOW the window's side in units of the die's extent (the side of
# its axis-aligned box): a die's whole extent and a margin.
FACE_INPUT = 32
FACE_WINDOW = 1.3

# FINDER_STRIDE is how many input pixels one cell of the finder's maps is.
# FINDER_SIZE_UNIT scales its size map: extent = exp(map) * unit.
FINDER_STRIDE = 4
FINDER_SIZE_UNIT = 16.0

# The finder's band: it learns to mark dice FINDER_MIN to FINDER_MAX px
# across, and to mark none of FINDER_TOO_BIG px or more (another look of
# the reader's pyramid sees those; their pips are not dice). The Go
# reader's pyramid (vision/finder.go) spaces its looks by a factor of 4
# so that every die falls in the band of one look.
FINDER_MIN = 7.0
FINDER_MAX = 48.0
FINDER_TOO_BIG = 64.0


def conv_bn_relu(cin, cout, k=3, stride=1, groups=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, padding=dilation * (k // 2), dilation=dilation, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class Separable(nn.Module):
    """A depthwise 3x3 convolution then a pointwise one (MobileNet's block),
    with a residual path when the shapes allow: about a seventh of a plain
    3x3 convolution's cost at these widths."""

    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.dw = conv_bn_relu(cin, cin, 3, stride, groups=cin, dilation=dilation)
        self.pw = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.pw(self.dw(x))
        if self.residual:
            y = y + x
        return F.relu(y)


class Finder(nn.Module):
    """Finder is a CenterNet-style dice finder: from an image scaled so that
    dice are about 16 px across, four maps at one cell per 4 px: the
    probability that a die's centre lies in the cell, the centre's offset
    within the cell (x, y) and the die's extent (log, in units of 16 px)."""

    def __init__(self, widths=(16, 32, 64, 96)):
        super().__init__()
        a, b, c, d = widths
        self.stem = conv_bn_relu(3, a, 3, 2)
        self.s4 = nn.Sequential(Separable(a, b, 2), Separable(b, b), Separable(b, b))
        self.s8 = nn.Sequential(Separable(b, c, 2), Separable(c, c), Separable(c, c, dilation=2))
        self.s16 = nn.Sequential(Separable(c, d, 2), Separable(d, d), Separable(d, d, dilation=2))
        self.up16 = nn.Sequential(nn.Conv2d(d, c, 1, bias=False), nn.BatchNorm2d(c))
        self.up8 = nn.Sequential(nn.Conv2d(c, b, 1, bias=False), nn.BatchNorm2d(b))
        self.head = nn.Sequential(Separable(b, b), nn.Conv2d(b, 4, 1))
        with torch.no_grad():
            # CenterNet's start: every cell a centre with probability 0.01.
            self.head[-1].bias[0].fill_(-4.6)

    def forward(self, x):
        x4 = self.s4(self.stem(x))
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        y8 = F.relu(x8 + F.interpolate(self.up16(x16), scale_factor=2.0, mode="nearest"))
        y4 = F.relu(x4 + F.interpolate(self.up8(y8), scale_factor=2.0, mode="nearest"))
        out = self.head(y4)
        return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)


class FaceNet(nn.Module):
    """FaceNet reads one die's window (FACE_INPUT pixels square, the die's
    extent times FACE_WINDOW, standardised) into FACE_CLASSES. Plain 3x3
    convolutions: OpenCV's DNN runs them several times faster per
    multiply than depthwise ones (docs/vision.md)."""

    def __init__(self, widths=(16, 32, 64, 96)):
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            conv_bn_relu(3, a, 3, 1),  # 32x32
            conv_bn_relu(a, b, 3, 2),  # 16x16
            conv_bn_relu(b, b, 3, 1),
            conv_bn_relu(b, c, 3, 2),  # 8x8
            conv_bn_relu(c, c, 3, 1),
            conv_bn_relu(c, d, 3, 2),  # 4x4
            nn.AdaptiveAvgPool2d(1),
        )
        self.classify = nn.Linear(d, len(FACE_CLASSES))
        self.softmax = False

    def forward(self, x):
        x = torch.flatten(self.features(x), 1)
        x = self.classify(x)
        if self.softmax:
            x = F.softmax(x, 1)
        return x
