"""Exports the networks to ONNX that OpenCV 4.6's DNN module reads, and
checks OpenCV's outputs against PyTorch's."""

import copy

import cv2
import numpy as np
import onnx
import torch
from onnx import numpy_helper

from nets import FACE_INPUT


def _fold_batchnorm(module):
    """_fold_batchnorm folds every BatchNorm that follows a convolution into
    it, so the graph holds convolutions alone."""
    module = copy.deepcopy(module).eval()

    def fold(parent):
        names = list(parent._modules)
        for a, b in zip(names, names[1:]):
            conv, bn = parent._modules[a], parent._modules[b]
            if isinstance(conv, torch.nn.Conv2d) and isinstance(bn, torch.nn.BatchNorm2d):
                parent._modules[a] = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
                parent._modules[b] = torch.nn.Identity()
        for child in parent._modules.values():
            if child is not None:
                fold(child)

    fold(module)
    return module


def _drop_identities(path):
    """_drop_identities rewrites each Identity node fed by an initializer as
    a copy of that initializer: torch 1.13's exporter makes them for equal
    constants, and OpenCV 4.6 refuses them."""
    model = onnx.load(path)
    inits = {i.name: i for i in model.graph.initializer}
    keep = []
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            copy_ = numpy_helper.from_array(numpy_helper.to_array(inits[node.input[0]]), node.output[0])
            model.graph.initializer.append(copy_)
            continue
        keep.append(node)
    del model.graph.node[:]
    model.graph.node.extend(keep)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return model


def _check(net, path, shape):
    x = np.random.default_rng(7).normal(0, 1, shape).astype(np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    cvnet = cv2.dnn.readNetFromONNX(path)
    cvnet.setInput(x)
    got = cvnet.forward()
    diff = float(np.abs(got - want).max())
    if diff > 1e-3:
        raise RuntimeError(f"export: OpenCV's {path} differs from PyTorch by {diff}")
    return diff


def finder(net, path):
    net = _fold_batchnorm(net)
    x = torch.zeros(1, 3, 256, 256)
    torch.onnx.export(net, x, path, opset_version=11, input_names=["image"], output_names=["maps"],
                      dynamic_axes={"image": {2: "height", 3: "width"}, "maps": {2: "rows", 3: "cols"}},
                      do_constant_folding=True)
    model = _drop_identities(path)
    ops = sorted({n.op_type for n in model.graph.node})
    for shape in ((1, 3, 256, 256), (1, 3, 192, 320)):
        diff = _check(net, path, shape)
    print(f"export: {path}: ops {ops}, OpenCV within {diff:.1e} of PyTorch", flush=True)


def faces(net, path):
    net = _fold_batchnorm(net)
    net.softmax = True
    x = torch.zeros(1, 3, FACE_INPUT, FACE_INPUT)
    torch.onnx.export(net, x, path, opset_version=11, input_names=["windows"], output_names=["classes"],
                      dynamic_axes={"windows": {0: "n"}, "classes": {0: "n"}}, do_constant_folding=True)
    model = _drop_identities(path)
    ops = sorted({n.op_type for n in model.graph.node})
    for shape in ((1, 3, FACE_INPUT, FACE_INPUT), (7, 3, FACE_INPUT, FACE_INPUT)):
        diff = _check(net, path, shape)
    print(f"export: {path}: ops {ops}, OpenCV within {diff:.1e} of PyTorch", flush=True)
