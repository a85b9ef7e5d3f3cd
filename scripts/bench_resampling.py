#!/usr/bin/env python3
"""How faithful each way of making the variants is, and what its resizing costs, measured as
scripts/bench measures the tools: luma PSNR and SSIM against the full decode resized with
Lanczos3 alone to the exact size, after JPEG encoding at the variants' qualities (libvips'
saver, the same for every candidate). vipsthumbnail, which decodes again for each size, is the
yardstick.

- The full-size variant: libvips' thumbnail (shrink-on-load, then Lanczos3) to the full-size
  box with one factor for both sides (as vipsthumbnail does, and ladder until renderer revision
  2), or to the exact planned size with a factor per side (revision 3); and, as a speed
  candidate, the same with the horizontal pass made by libvips' vectorised vertical reduce on the
  transposed picture (libvips 8.14's horizontal reduce is scalar C, its vertical one orc code
  with 6-bit coefficients).
- The thumbnails: candidates that start from the full-size picture ladder decodes and differ in
  the kernel, the box shrink before it (libvips' gap), whether small_thumb is made from
  large_thumb (chain, in 8 or in 16 bits) or from the full picture, and the transposed
  horizontal pass; and a
  large_thumb decoded again from the file (shrink-on-load, as vipsthumbnail does), instead of
  resized from the full-size picture.

With --timing, also the CPU milliseconds each candidate's resizing takes per image (this
process's CPU time, which other jobs on the machine barely change; libvips on one thread
(VIPS_CONCURRENCY=1), its cache off, the best of 3 runs per image, summed over the folder); the
decodes of the full-size picture are timed with their reduce, a full decode alone beside them.

    python3 scripts/bench_resampling.py [--timing] [FOLDER...]

FOLDERs default to ../shared/corpus/photos and the mixed set of scripts/bench (all its camera
photos and its renders); --hard adds the hard set of scripts/hardset.py. Needs pyvips (scripts/bench
installs it).
"""
import importlib.util
import math
import os
import shutil
import statistics
import sys
import tempfile
import time

spec = importlib.util.spec_from_file_location("bench", os.path.join(os.path.dirname(__file__), "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

FULL = ("full", 2560, 85)
THUMBNAILS = [("small_thumb", 160, 80), ("large_thumb", 640, 82)]
DECODES = [
    # (label, how): the full-size picture, made from the file
    ("one factor for both sides (revision 2)", "one-factor"),
    ("exact size, a factor per side (revision 3)", "exact"),
    ("exact size, horizontal pass transposed", "exact-transposed"),
]
CANDIDATES = [
    # (label, kernel, gap, chain, transposed); all but the second decode start from the exact-size
    # decode
    ("triangle alone, chain (revision 1)", "linear", 0.0, True, False),
    ("Lanczos3 after a box shrink (gap 2), each from full", "lanczos3", 2.0, False, False),
    ("Lanczos3 after a box shrink (gap 2), chain", "lanczos3", 2.0, True, False),
    ("Lanczos3 alone, each from full (revision 4)", "lanczos3", 0.0, False, False),
    ("Lanczos3 alone, chain (revisions 2 and 3)", "lanczos3", 0.0, True, False),
    ("Lanczos3 alone, chain, 16 bits between the resizes", "lanczos3", 0.0, "wide", False),
    ("Lanczos3 alone, chain, horizontal passes transposed", "lanczos3", 0.0, True, True),
    ("large_thumb decoded again (shrink-on-load, Lanczos3), small_thumb from it", "lanczos3", 0.0, "decode", False),
    ("Lanczos2 alone, chain", "lanczos2", 0.0, True, False),
    ("Catmull-Rom (cubic) alone, chain", "cubic", 0.0, True, False),
    ("Mitchell alone, chain", "mitchell", 0.0, True, False),
]


def resized(image, size, kernel, gap, transposed=False):
    """libvips' resize to exactly `size`; `transposed` makes the horizontal pass with the
    vertical reduce on the picture turned a quarter (libvips 8.14 vectorises only that one)."""
    if (image.width, image.height) == size:
        return image
    if not transposed:
        return image.resize(size[0] / image.width, vscale=size[1] / image.height, kernel=kernel, gap=gap)
    if size[1] != image.height:
        image = image.reducev(image.height / size[1], kernel=kernel, gap=gap).copy_memory()
    if size[0] != image.width:
        turned = image.rot90().copy_memory()
        image = turned.reducev(turned.height / size[0], kernel=kernel, gap=gap).copy_memory().rot270()
    return image


def decoded(path, how, planned, profile):
    """The full-size picture as a candidate decode makes it: 8-bit sRGB (or gray), in memory,
    transparency flattened onto white as ladder does before any resize of its own."""
    picture = decoded_as_is(path, how, planned, profile)
    return picture.flatten(background=255).cast("uchar").copy_memory() if picture.hasalpha() else picture


def decoded_as_is(path, how, planned, profile):
    import pyvips
    if how == "one-factor":
        picture = pyvips.Image.thumbnail(path, planned[0], height=planned[1], size="down", **profile)
        picture = picture.colourspace("b-w" if picture.bands < 3 else "srgb").copy_memory()
        if (picture.width, picture.height) != planned:
            picture = resized(picture, planned, "lanczos3", 2.0).copy_memory()
        return picture
    if how == "exact":
        picture = pyvips.Image.thumbnail(path, planned[0], height=planned[1], size="force", **profile)
        return picture.colourspace("b-w" if picture.bands < 3 else "srgb").copy_memory()
    # exact-transposed: libvips' thumbnail's steps (shrink-on-load leaving a factor of two or
    # more, upright, the profile to sRGB), with the reduce made by resized(transposed=True).
    upright = pyvips.Image.new_from_file(path).autorot()
    factor = min(upright.width / planned[0], upright.height / planned[1])
    shrink = 8 if factor >= 16 else 4 if factor >= 8 else 2 if factor >= 4 else 1
    if shrink > 1 and path.lower().endswith((".jpg", ".jpeg")):
        upright = pyvips.Image.new_from_file(path, shrink=shrink).autorot()
    if profile and upright.get_typeof("icc-profile-data"):
        upright = upright.icc_transform("srgb", embedded=True)
    picture = upright.colourspace("b-w" if upright.bands < 3 else "srgb").cast("uchar").copy_memory()
    return resized(picture, planned, "lanczos3", 2.0, transposed=True).copy_memory()


def score(picture, reference, quality, size):
    import pyvips
    if picture.hasalpha():
        picture = picture.flatten(background=255)  # as ladder and the reference do
    saved = picture.cast("uchar").jpegsave_buffer(Q=quality, strip=True, optimize_coding=True)
    made = bench.luma(pyvips.Image.new_from_buffer(saved, "")).copy_memory()
    if (made.width, made.height) != size:
        made = resized(made, size, "lanczos3", 0.0)
    mean_square = ((reference - made) ** 2).avg()
    psnr = 99.0 if mean_square == 0 else 10 * math.log10(255 * 255 / mean_square)
    return psnr, bench.ssim(made, reference)


def best_ms(make, runs=3):
    best = math.inf
    for _ in range(runs):
        started = time.process_time()
        make().copy_memory()
        best = min(best, time.process_time() - started)
    return best * 1000


def scores_of(path):
    import pyvips
    pyvips.cache_set_max(0)
    full = bench.upright_srgb(path)
    profile = {"export_profile": "srgb"} if pyvips.Image.new_from_file(path).get_typeof("icc-profile-data") else {}
    planned = bench.fitted(full.width, full.height, FULL[1])
    found, times = {}, {}
    reference = bench.luma(resized(full, planned, "lanczos3", 0.0).cast("uchar")).copy_memory()
    pictures = {label: decoded(path, how, planned, profile) for label, how in DECODES}
    pictures["vipsthumbnail"] = pyvips.Image.thumbnail(path, FULL[1], height=FULL[1], size="down", **profile)
    for label, picture in pictures.items():
        found[(FULL[0], label)] = score(picture, reference, FULL[2], planned)
    if TIMING:
        times["full decode alone"] = best_ms(lambda: pyvips.Image.new_from_file(path))
        for label, how in DECODES:
            times[label] = best_ms(lambda: decoded(path, how, planned, profile))
    start = pictures["exact size, a factor per side (revision 3)"]
    large_size = bench.fitted(full.width, full.height, THUMBNAILS[1][1])
    for variant, box, quality in THUMBNAILS:
        size = bench.fitted(full.width, full.height, box)
        reference = bench.luma(resized(full, size, "lanczos3", 0.0).cast("uchar")).copy_memory()
        pictures = {"vipsthumbnail": pyvips.Image.thumbnail(path, box, height=box, size="down", **profile)}
        for label, kernel, gap, chain, transposed in CANDIDATES:
            def large_of(kernel=kernel, gap=gap, chain=chain, transposed=transposed):
                """The picture this candidate makes `size` from."""
                if chain == "decode":
                    return pyvips.Image.thumbnail(
                        path, large_size[0], height=large_size[1], size="force", **profile).copy_memory()
                if chain == "wide":
                    # signed 16 bits: the ringing beyond 0 and 255 is kept for the next resize
                    return resized(start.cast("short"), large_size, kernel, gap, transposed).copy_memory()
                return resized(start, large_size, kernel, gap, transposed).copy_memory() if chain else start

            def make(large=None, kernel=kernel, gap=gap, chain=chain, transposed=transposed):
                picture = resized(large_of() if large is None else large, size, kernel, gap, transposed)
                return picture.cast("uchar") if chain == "wide" else picture
            pictures[label] = make()
            if TIMING:
                # A chain's small_thumb is timed from its large_thumb made beforehand, which the
                # large_thumb's own timing counts: each resize is counted once.
                made_before = large_of().copy_memory() if chain and variant != THUMBNAILS[1][0] else None
                times[label] = times.get(label, 0) + best_ms(lambda: make(made_before))
        for label, picture in pictures.items():
            found[(variant, label)] = score(picture, reference, quality, size)
    return os.path.basename(path), found, times


TIMING = "--timing" in sys.argv


def main():
    if TIMING:
        os.environ["VIPS_CONCURRENCY"] = "1"
    folders = [a for a in sys.argv[1:] if a not in ("--timing", "--hard")]
    work = tempfile.mkdtemp(prefix="ladder-resampling-")
    try:
        if "--hard" in sys.argv:
            import hardset
            hardset.generate_hard_set(os.path.join(work, "hard"))
            folders = (folders or ["../shared/corpus/photos", bench.mixed_set(work, "../shared/corpus",
                                                                              len(bench.MIXED_CAMERA_PHOTOS))]) \
                + [os.path.join(work, "hard")]
        measure(folders, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(results, variants, labels, best=False):
    """Medians per candidate and variant, the image furthest below vipsthumbnail and, with
    `best`, the one furthest above it."""
    extra = " | best" if best else ""
    print("| candidate | " + " | ".join(f"{v} | worst{extra}" for v in variants) + " |")
    print("|---|" + ("---|---|---|" if best else "---|---|") * len(variants))
    for label in labels:
        cells = []
        for variant in variants:
            psnr = statistics.median(r[(variant, label)][0] for r in results.values())
            ssim = statistics.median(r[(variant, label)][1] for r in results.values())
            cells.append(f"{psnr:.2f} / {ssim:.4f}")
            ends = [min] + ([max] if best else [])
            for end in ends:
                image = end(results, key=lambda s: results[s][(variant, label)][0] - results[s][(variant, "vipsthumbnail")][0])
                gap = results[image][(variant, label)][0] - results[image][(variant, "vipsthumbnail")][0]
                cells.append("—" if label == "vipsthumbnail" else f"{gap:+.2f} dB ({image})")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def measure(folders, work):
    import multiprocessing
    if not folders:
        folders = ["../shared/corpus/photos", bench.mixed_set(work, "../shared/corpus", len(bench.MIXED_CAMERA_PHOTOS))]
    for folder in folders:
        files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.lower().endswith(bench.IMAGE_SUFFIXES))
        # Timing runs one image at a time, so that the images do not compete for the cores.
        # Fresh processes (spawn): libvips' threads, started here by the mixed set's renders, do
        # not survive a fork.
        context = multiprocessing.get_context("spawn")
        with context.Pool(1 if TIMING else os.cpu_count()) as pool:
            measured = pool.map(scores_of, files)
        results = {name: found for name, found, _ in measured}
        print(f"\n{folder}: {len(files)} images; median PSNR dB / SSIM after JPEG encoding, worst image vs vipsthumbnail\n")
        table(results, [FULL[0]], ["vipsthumbnail"] + [d[0] for d in DECODES], best=True)
        print()
        table(results, [v for v, _, _ in THUMBNAILS], ["vipsthumbnail"] + [c[0] for c in CANDIDATES])
        if TIMING:
            print(f"\nCPU ms summed over the {len(files)} images (one thread, best of 3 per image):\n")
            for label in measured[0][2]:
                print(f"| {label} | {sum(t[label] for _, _, t in measured):.0f} |")


if __name__ == "__main__":
    main()
