#!/usr/bin/env python3
"""How faithful each way of making the thumbnails is, measured as scripts/bench measures the
tools: luma PSNR and SSIM against the full decode resized with Lanczos3 alone to the exact size.
The candidates all start from the picture ladder decodes (libvips' thumbnail to the full-size
box, as vipsthumbnail does) and differ in the kernel, the box shrink before it (libvips' gap) and
whether small_thumb is made from large_thumb (chain) or from the full picture. vipsthumbnail,
which decodes again for each size, is the yardstick. Scores are taken after JPEG encoding at the
variants' qualities (libvips' saver, the same for every candidate).

    python3 scripts/bench_resampling.py [FOLDER...]

FOLDERs default to ../shared/corpus/photos and the mixed set of scripts/bench (all its camera
photos and its renders). Needs pyvips (scripts/bench installs it).
"""
import importlib.util
import math
import os
import shutil
import statistics
import sys
import tempfile

spec = importlib.util.spec_from_file_location("bench", os.path.join(os.path.dirname(__file__), "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

THUMBNAILS = [("small_thumb", 160, 80), ("large_thumb", 640, 82)]
CANDIDATES = [
    # (label, kernel, gap, chain)
    ("triangle alone, chain (revision 1)", "linear", 0.0, True),
    ("Lanczos3 after a box shrink (gap 2), each from full", "lanczos3", 2.0, False),
    ("Lanczos3 after a box shrink (gap 2), chain", "lanczos3", 2.0, True),
    ("Lanczos3 alone, each from full", "lanczos3", 0.0, False),
    ("Lanczos3 alone, chain (revision 2)", "lanczos3", 0.0, True),
    ("Lanczos2 alone, chain", "lanczos2", 0.0, True),
    ("Catmull-Rom (cubic) alone, chain", "cubic", 0.0, True),
    ("Mitchell alone, chain", "mitchell", 0.0, True),
]


def resized(image, size, kernel, gap):
    if (image.width, image.height) == size:
        return image
    return image.resize(size[0] / image.width, vscale=size[1] / image.height, kernel=kernel, gap=gap)


def scores_of(path):
    import pyvips
    full = bench.upright_srgb(path)
    profile = {"export_profile": "srgb"} if pyvips.Image.new_from_file(path).get_typeof("icc-profile-data") else {}
    planned = bench.fitted(full.width, full.height, 2560)
    decoded = pyvips.Image.thumbnail(path, 2560, height=2560, size="down", **profile)
    decoded = decoded.colourspace("b-w" if decoded.bands < 3 else "srgb").copy_memory()
    if (decoded.width, decoded.height) != planned:
        decoded = resized(decoded, planned, "lanczos3", 2.0).copy_memory()
    large_size = bench.fitted(full.width, full.height, 640)
    found = {}
    for variant, box, quality in THUMBNAILS:
        size = bench.fitted(full.width, full.height, box)
        reference = bench.luma(resized(full, size, "lanczos3", 0.0).cast("uchar")).copy_memory()
        pictures = {"vipsthumbnail": pyvips.Image.thumbnail(path, box, height=box, size="down", **profile)}
        for label, kernel, gap, chain in CANDIDATES:
            start = resized(decoded, large_size, kernel, gap).copy_memory() if chain else decoded
            pictures[label] = resized(start, size, kernel, gap)
        for label, picture in pictures.items():
            saved = picture.cast("uchar").jpegsave_buffer(Q=quality, strip=True, optimize_coding=True)
            made = bench.luma(pyvips.Image.new_from_buffer(saved, "")).copy_memory()
            if (made.width, made.height) != size:
                made = resized(made, size, "lanczos3", 0.0)
            mean_square = ((reference - made) ** 2).avg()
            psnr = 99.0 if mean_square == 0 else 10 * math.log10(255 * 255 / mean_square)
            found[(variant, label)] = (psnr, bench.ssim(made, reference))
    return os.path.basename(path), found


def main():
    folders = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="ladder-resampling-")
    try:
        measure(folders, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(folders, work):
    import multiprocessing
    if not folders:
        folders = ["../shared/corpus/photos", bench.mixed_set(work, "../shared/corpus", len(bench.MIXED_CAMERA_PHOTOS))]
    labels = ["vipsthumbnail"] + [c[0] for c in CANDIDATES]
    for folder in folders:
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(bench.IMAGE_SUFFIXES))
        with multiprocessing.Pool(os.cpu_count()) as pool:
            results = dict(pool.map(scores_of, files))
        print(f"\n{folder}: {len(files)} images; median PSNR dB / SSIM after JPEG encoding, worst image vs vipsthumbnail\n")
        print("| candidate | " + " | ".join(f"{v} | worst" for v, _, _ in THUMBNAILS) + " |")
        print("|---|" + "---|---|" * len(THUMBNAILS))
        for label in labels:
            cells = []
            for variant, _, _ in THUMBNAILS:
                psnr = statistics.median(r[(variant, label)][0] for r in results.values())
                ssim = statistics.median(r[(variant, label)][1] for r in results.values())
                worst = min(results, key=lambda s: results[s][(variant, label)][0] - results[s][(variant, "vipsthumbnail")][0])
                gap = results[worst][(variant, label)][0] - results[worst][(variant, "vipsthumbnail")][0]
                cells += [f"{psnr:.2f} / {ssim:.4f}", "—" if label == "vipsthumbnail" else f"{gap:+.2f} dB ({worst})"]
            print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
