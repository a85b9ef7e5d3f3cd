#!/usr/bin/env python3
"""How close pictures are to a reference, by the two measures ladder holds its format siblings to,
computed apart from ladder: the oracle of Tests/LadderCoreTests/SiblingQualityTests.swift.

    python3 scripts/reference/closeness.py REFERENCE PICTURE...

Every file is read with Pillow (PNG or PPM: the tests decode JPEG, WebP and AVIF with djpeg,
dwebp and avifdec first). For each PICTURE one line: butteraugli's 3-norm (libjxl's, called
through ctypes by scripts/butteraugli.py) and SSIM (scikit-image's structural_similarity as Wang
et al. 2004 define it: Gaussian window, sigma 1.5, population covariance, data range 255) of the
Rec. 601 luma planes, which are rounded to 8 bits in 16-bit fixed point as ladder rounds them.

    python3 -m pip install numpy scikit-image Pillow   (scripts/bootstrap puts them in .build/quality-tools)
"""
import os
import sys

import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import butteraugli as libjxl_butteraugli  # noqa: E402  (scripts/butteraugli.py)


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.uint8)


def luma(pixels):
    r, g, b = (pixels[..., i].astype(np.int64) for i in range(3))
    return ((19595 * r + 38470 * g + 7471 * b + 32768) >> 16).astype(np.float64)


class Reference:
    """A reference picture (packed 8-bit RGB, height x width x 3), ready to measure others of its
    size against: `closeness(picture)` gives (butteraugli 3-norm, SSIM of the luma planes)."""

    def __init__(self, pixels):
        self.pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
        self.height, self.width = self.pixels.shape[:2]
        self.luma = luma(self.pixels)

    def closeness(self, picture):
        picture = np.ascontiguousarray(picture, dtype=np.uint8)
        if picture.shape != self.pixels.shape:
            raise ValueError(f"{picture.shape[1]}x{picture.shape[0]}, the reference is {self.width}x{self.height}")
        norm3, _ = libjxl_butteraugli.distance(self.width, self.height, self.pixels.tobytes(), picture.tobytes())
        ssim = structural_similarity(luma(picture), self.luma, gaussian_weights=True, sigma=1.5,
                                     use_sample_covariance=False, data_range=255)
        return norm3, ssim


def main():
    reference = Reference(rgb(sys.argv[1]))
    for path in sys.argv[2:]:
        try:
            norm3, ssim = reference.closeness(rgb(path))
        except ValueError as error:
            sys.exit(f"{path}: {error}")
        print(f"{norm3:.6f} {ssim:.6f}")


if __name__ == "__main__":
    main()
