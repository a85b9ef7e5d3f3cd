#!/usr/bin/env python3
"""Reference SSIM values for Tests/LadderCoreTests/ImageQualityTests.swift, from scikit-image.

Also the colour measure of what the screen shows (ScreenQuality): scikit-image's SSIM of a
three-channel picture (its Y, Cb and Cr planes stacked, channel_axis=2), which is the mean of the
channels' SSIM, each set up as below; and that measure of a picture shown in a view, taken after
the automatic downsampling of Wang's reference ssim.m (2009): squares of F x F pixels averaged,
F = max(1, round(min(width, height) / 256)), as piq's ssim(downsample=True) pools them (whole
squares from the top left; each mean rounded half up to an integer, as ScreenQuality keeps 8-bit
planes).

The test planes are generated here exactly as the Swift test generates them (integer arithmetic
and a xorshift32 noise source), and compared with scikit-image's structural_similarity set up as
Wang et al. 2004 define SSIM: an 11x11 Gaussian window with sigma 1.5, K1 0.01, K2 0.03, the
population (not sample) covariance, and a data range of 255. scikit-image averages the SSIM map
over the windows that lie wholly inside the plane, as Wang et al.'s ssim_index.m does ('valid').

    python3 -m pip install scikit-image==0.26.0 numpy
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


# Three planes each (Y, Cb, Cr), picture and reference, named by the plane cases above.
COLOR_CASES = [
    ("gradient luma, texture chroma", 64, 48, ["noisy gradient", "quantized texture", "blurred texture"]),
    ("chroma shifted", 50, 40, ["brighter gradient", "inverted texture", "brighter gradient"]),
    ("luma exact, chroma noisy", 80, 60, ["quantized texture", "noisy gradient", "noisy gradient"]),
]


# Views (width, height) of three planes each, as in COLOR_CASES: measured after pooling.
SHOWN_CASES = [
    ("phone view 1280 x 960", 1280, 960, ["wide noisy texture", "noisy gradient", "blurred texture"]),
    ("phone view 1280 x 853", 1280, 853, ["noisy gradient", "quantized texture", "wide noisy texture"]),
    ("small view 600 x 450", 600, 450, ["blurred texture", "wide noisy texture", "noisy gradient"]),
    ("view under 384 pixels", 300, 200, ["noisy gradient", "quantized texture", "blurred texture"]),
]


def pooling_factor(w, h):
    """ssim.m: f = max(1, round(min(M, N) / 256)), MATLAB's round (halves away from zero)."""
    return max(1, int(np.floor(min(w, h) / 256 + 0.5)))


def pooled(plane, factor):
    """The mean of each whole factor x factor square from the top left, rounded half up."""
    if factor == 1:
        return plane
    h, w = plane.shape
    ph, pw = h // factor, w // factor
    blocks = plane[:ph * factor, :pw * factor].reshape(ph, factor, pw, factor).sum(axis=(1, 3))
    return (blocks + factor * factor // 2) // (factor * factor)


def ssim(picture, reference):
    return structural_similarity(
        picture.astype(np.float64), reference.astype(np.float64), gaussian_weights=True, sigma=1.5,
        use_sample_covariance=False, data_range=255, K1=0.01, K2=0.03)


def main():
    print(f"// scikit-image {skimage.__version__}, numpy {np.__version__}")
    for name, w, h, make_picture, make_reference in CASES:
        value = ssim(make_picture(w, h), make_reference(w, h))
        print(f'("{name}", {w}, {h}, {value:.12f}),')
    print("// colour: structural_similarity(..., channel_axis=2) of the Y, Cb and Cr planes stacked")
    by_name = {case[0]: case for case in CASES}
    for name, w, h, planes in COLOR_CASES:
        picture = np.stack([by_name[plane][3](w, h) for plane in planes], axis=2).astype(np.float64)
        reference = np.stack([by_name[plane][4](w, h) for plane in planes], axis=2).astype(np.float64)
        value = structural_similarity(
            picture, reference, channel_axis=2, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
            data_range=255, K1=0.01, K2=0.03)
        print(f'("{name}", {w}, {h}, {value:.12f}),')
    print("// shown in a view: pooled by the factor, then as the colour cases")
    for name, w, h, planes in SHOWN_CASES:
        factor = pooling_factor(w, h)
        picture = np.stack([pooled(by_name[plane][3](w, h), factor) for plane in planes], axis=2).astype(np.float64)
        reference = np.stack([pooled(by_name[plane][4](w, h), factor) for plane in planes], axis=2).astype(np.float64)
        value = structural_similarity(
            picture, reference, channel_axis=2, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
            data_range=255, K1=0.01, K2=0.03)
        print(f'("{name}", {w}, {h}, {factor}, {value:.12f}),')


if __name__ == "__main__":
    main()
