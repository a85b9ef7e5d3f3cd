#!/usr/bin/env python3
"""Reference SSIM values for Tests/LadderCoreTests/ImageQualityTests.swift, from scikit-image.

Also the contrast-structure term of SSIM alone, and the colour measure of what the screen shows (ScreenQuality): multi-scale SSIM (Wang, Simoncelli and Bovik
2003) over its three finest scales, their published exponents 0.0448, 0.2856, 0.3001 scaled to
sum to 1, of the Y, Cb and Cr planes weighted 0.8, 0.1, 0.1 (Wang, Lu and Bovik 2004). Each
scale's contrast-structure term is computed here with SciPy's separable filtering (the
coarsest scale's whole SSIM is scikit-image's, and checked against the same filtering); each
next scale is the 2 x 2 means of the last, rounded half up to 8 bits as ScreenQuality keeps its
planes (a last odd row or column dropped).

The test planes are generated here exactly as the Swift test generates them (integer arithmetic
and a xorshift32 noise source), and compared with scikit-image's structural_similarity set up as
Wang et al. 2004 define SSIM: an 11x11 Gaussian window with sigma 1.5, K1 0.01, K2 0.03, the
population (not sample) covariance, and a data range of 255. scikit-image averages the SSIM map
over the windows that lie wholly inside the plane, as Wang et al.'s ssim_index.m does ('valid').

    python3 -m pip install scikit-image==0.26.0 numpy scipy
    python3 scripts/reference/ssim_reference.py

prints the Swift table that the test holds. Run once; the tests do not need Python.
"""
import numpy as np
import skimage
from skimage.metrics import structural_similarity


def xorshift_noise(count, seed=2463534242):
    """count values of xorshift32 (Marsaglia 2003), in the order the Swift test draws them."""
    state = seed
    out = np.empty(count, dtype=np.int64)
    for i in range(count):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out[i] = state
    return out


def gradient(w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.int64)
    return (x * 255 * (h - 1) + y * 255 * (w - 1)) // (2 * (w - 1) * (h - 1))


def texture(w, h):
    y, x = np.mgrid[0:h, 0:w].astype(np.int64)
    return (x * x + 3 * y * y + 5 * x * y) % 256


def noisy(plane, amplitude):
    h, w = plane.shape
    r = xorshift_noise(w * h).reshape(h, w)
    return np.clip(plane + r % (2 * amplitude + 1) - amplitude, 0, 255)


def box_blur(plane):
    h, w = plane.shape
    padded = np.pad(plane, 1, mode="edge")
    total = sum(padded[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3))
    return (total + 4) // 9


def quantized(plane):
    return (plane & 0xE0) | 0x10


def flat(w, h, value):
    return np.full((h, w), value, dtype=np.int64)


CASES = [
    # name, width, height, picture, reference
    ("noisy gradient", 64, 48, lambda w, h: noisy(gradient(w, h), 20), gradient),
    ("blurred texture", 37, 53, lambda w, h: box_blur(texture(w, h)), texture),
    ("quantized texture", 80, 60, lambda w, h: quantized(texture(w, h)), texture),
    ("brighter gradient", 50, 40, lambda w, h: np.clip(gradient(w, h) + 10, 0, 255), gradient),
    ("inverted texture", 40, 30, lambda w, h: 255 - texture(w, h), texture),
    ("flat against noise", 33, 21, lambda w, h: flat(w, h, 128), lambda w, h: noisy(flat(w, h, 128), 30)),
    ("one window", 11, 11, lambda w, h: noisy(texture(w, h), 40), texture),
    ("wide noisy texture", 300, 17, lambda w, h: noisy(texture(w, h), 12), texture),
    # Large enough (over 2^20 windows) to be measured in row bands on a machine with 2 or more cores.
    ("large noisy texture", 1500, 1400, lambda w, h: noisy(texture(w, h), 12), texture),
]


# Plane cases whose contrast-structure term is checked on its own.
STRUCTURE_CASES = ["noisy gradient", "blurred texture", "inverted texture", "wide noisy texture"]


# Views (width, height) of three planes each, as in COLOR_CASES: measured at three scales.
SHOWN_CASES = [
    ("phone view 1280 x 960", 1280, 960, ["wide noisy texture", "noisy gradient", "blurred texture"]),
    ("phone view 1280 x 853", 1280, 853, ["noisy gradient", "quantized texture", "wide noisy texture"]),
    ("small view 600 x 450", 600, 450, ["blurred texture", "wide noisy texture", "noisy gradient"]),
    ("view of 70 x 45", 70, 45, ["noisy gradient", "quantized texture", "blurred texture"]),
]

PLANE_WEIGHTS = [0.8, 0.1, 0.1]
SCALE_WEIGHTS = [w / (0.0448 + 0.2856 + 0.3001) for w in (0.0448, 0.2856, 0.3001)]


def halved(plane):
    """The mean of each whole 2 x 2 square from the top left, rounded half up."""
    h, w = plane.shape
    ph, pw = h // 2, w // 2
    blocks = plane[:ph * 2, :pw * 2].reshape(ph, 2, pw, 2).sum(axis=(1, 3))
    return (blocks + 2) // 4


def structure_terms(picture, reference):
    """The means over the 'valid' 11 x 11 Gaussian windows (sigma 1.5) of SSIM's map and of its
    contrast-structure term (2 sxy + C2) / (sx^2 + sy^2 + C2), population statistics."""
    from scipy.ndimage import correlate1d

    x, y = reference.astype(np.float64), picture.astype(np.float64)
    taps = np.exp(-((np.arange(11) - 5) ** 2) / (2 * 1.5 ** 2))
    taps /= taps.sum()

    def window(a):
        return correlate1d(correlate1d(a, taps, axis=0), taps, axis=1)[5:-5, 5:-5]

    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = window(x), window(y)
    sxx, syy, sxy = window(x * x) - mx * mx, window(y * y) - my * my, window(x * y) - mx * my
    cs = (2 * sxy + c2) / (sxx + syy + c2)
    luminance = (2 * mx * my + c1) / (mx * mx + my * my + c1)
    return float((luminance * cs).mean()), float(cs.mean())


def multi_scale(picture, reference):
    value = 1.0
    for scale, exponent in enumerate(SCALE_WEIGHTS):
        whole, cs = structure_terms(picture, reference)
        if scale == len(SCALE_WEIGHTS) - 1:
            # The coarsest scale's SSIM, by scikit-image too.
            assert abs(whole - ssim(picture, reference)) < 1e-9
            return value * max(0.0, whole) ** exponent
        value *= max(0.0, cs) ** exponent
        picture, reference = halved(picture), halved(reference)


def ssim(picture, reference):
    return structural_similarity(
        picture.astype(np.float64), reference.astype(np.float64), gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False, data_range=255, K1=0.01, K2=0.03)


def main():
    print(f"// scikit-image {skimage.__version__}, numpy {np.__version__}")
    for name, w, h, make_picture, make_reference in CASES:
        value = ssim(make_picture(w, h), make_reference(w, h))
        print(f'("{name}", {w}, {h}, {value:.12f}),')
    print("// contrast-structure term: its mean over the windows")
    by_name = {case[0]: case for case in CASES}
    for name in STRUCTURE_CASES:
        _, w, h, make_picture, make_reference = by_name[name]
        print(f'("{name}", {w}, {h}, {structure_terms(make_picture(w, h), make_reference(w, h))[1]:.12f}),')
    print("// shown in a view: multi-scale SSIM of each plane, weighted 0.8, 0.1, 0.1")
    for name, w, h, planes in SHOWN_CASES:
        value = sum(
            weight * multi_scale(by_name[plane][3](w, h), by_name[plane][4](w, h))
            for weight, plane in zip(PLANE_WEIGHTS, planes))
        print(f'("{name}", {w}, {h}, {value:.12f}),')


if __name__ == "__main__":
    main()
