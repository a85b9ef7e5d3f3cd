"""Pictures the browser tests build ladders of, made from formulas (no photo is needed)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw


def ycbcr_to_rgb(y, cb, cr):
    r = y + 1.402 * (cr - 128)
    g = y - 0.344136 * (cb - 128) - 0.714136 * (cr - 128)
    b = y + 1.772 * (cb - 128)
    return np.dstack([r, g, b]).clip(0, 255).round().astype(np.uint8)


def scans_subject(width: int, height: int) -> Image.Image:
    """A picture in which every scan of a 5-scan script changes what is seen: broad luma shapes
    (the first AC band), fine luma texture (the last band), and detail in each colour difference
    on its own (the two chroma scans)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    luma = 128 + 45 * np.sin(2 * np.pi * x / 40) * np.cos(2 * np.pi * y / 56)
    luma += 30 * np.sign(np.sin(2 * np.pi * x / 4.3) * np.sin(2 * np.pi * y / 3.7))
    cb = 128 + 55 * np.sin(2 * np.pi * x / 22 + y / 30)
    cr = 128 + 55 * np.cos(2 * np.pi * y / 26 - x / 40)
    return Image.fromarray(ycbcr_to_rgb(luma, cb, cr))


def tile(width: int, height: int, seed: int) -> Image.Image:
    """A small picture of its own for each seed: waves whose periods and phases follow it."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    r = 128 + 100 * np.sin(x / (7 + seed % 13) + seed)
    g = 128 + 100 * np.cos(y / (5 + seed % 7) - seed * 0.3)
    b = 128 + 100 * np.sin((x + y) / (9 + seed % 5) + seed * 0.7)
    return Image.fromarray(np.dstack([r, g, b]).clip(0, 255).astype(np.uint8))


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """PSNR in dB between two 8-bit pictures of the same shape (all channels)."""
    difference = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(difference * difference))
    return 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)


def flat_art(width: int, height: int, seed: int) -> Image.Image:
    """Flat artwork of its own for each seed: a few rectangles and ellipses in flat colours, the
    kind of picture WebP and AVIF keep as close as the JPEG in fewer bytes."""
    palette = [(230, 80, 40), (40, 90, 200), (250, 220, 60), (245, 240, 230), (30, 140, 90), (120, 60, 160)]
    picture = Image.new("RGB", (width, height), palette[(seed + 3) % len(palette)])
    draw = ImageDraw.Draw(picture)
    for k in range(4):
        left = (seed * 97 + k * 211) % (width // 2)
        top = (seed * 53 + k * 131) % (height // 2)
        box = [left, top, left + width // 3 + k * 40, top + height // 3 + k * 30]
        (draw.ellipse if k % 2 else draw.rectangle)(box, fill=palette[(seed + k) % len(palette)])
    return picture
