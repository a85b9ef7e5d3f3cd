#!/usr/bin/env python3
"""Reference butteraugli distances for Tests/LadderImagingTests/ButteraugliTests.swift, from
libjxl's own butteraugli (JxlButteraugliCompute, libjxl 0.7, its defaults), called here through
ctypes on pixels made with numpy: a caller independent of ladder's Swift wrapper, which the test
holds to these values (pixel layout, channel count, which norm).

The pictures are generated here exactly as the Swift test generates them (integer arithmetic and
a xorshift32 noise source):

    python3 -m pip install numpy
    python3 scripts/reference/butteraugli_reference.py

prints the Swift table that the test holds. Run once; the tests do not need Python.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import butteraugli as libjxl_butteraugli  # noqa: E402  (scripts/butteraugli.py)

W, H = 64, 48


def xorshift(count, seed=2463534242):
    state, out = seed, []
    for _ in range(count):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out.append(state)
    return np.array(out, dtype=np.int64)


def reference():
    y, x = np.mgrid[0:H, 0:W].astype(np.int64)
    return np.stack([x * 255 // (W - 1), y * 255 // (H - 1), (x * y * 7) % 256], axis=-1)


def noisy(picture):
    noise = (xorshift(picture.size) % 17 - 8).reshape(picture.shape)
    return np.clip(picture + noise, 0, 255)


def posterized(picture):
    return picture // 32 * 32 + 16


def distance(a, b):
    return libjxl_butteraugli.distance(W, H, a.astype(np.uint8).tobytes(), b.astype(np.uint8).tobytes())


if __name__ == "__main__":
    original = reference()
    print("    // scripts/reference/butteraugli_reference.py (libjxl 0.7): (3-norm, max)")
    for name, picture in (("identical", original), ("noisy", noisy(original)), ("posterized", posterized(original))):
        norm3, worst = distance(original, picture)
        print(f'    ("{name}", {norm3:.6f}, {worst:.6f}),')
