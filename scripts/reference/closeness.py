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


def main():
    reference = rgb(sys.argv[1])
    height, width = reference.shape[:2]
    reference_luma = luma(reference)
    for path in sys.argv[2:]:
        picture = rgb(path)
        if picture.shape != reference.shape:
            sys.exit(f"{path}: {picture.shape[1]}x{picture.shape[0]}, the reference is {width}x{height}")
        norm3, _ = libjxl_butteraugli.distance(width, height, reference.tobytes(), picture.tobytes())
        ssim = structural_similarity(luma(picture), reference_luma, gaussian_weights=True, sigma=1.5,
                                     use_sample_covariance=False, data_range=255)
        print(f"{norm3:.6f} {ssim:.6f}")


if __name__ == "__main__":
    main()
