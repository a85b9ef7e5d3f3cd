#!/usr/bin/env python3
"""What format siblings save and cost, run through `scripts/bench --formats`.

  scripts/bench --formats [FOLDER] [--rounds N] [--jobs N] [--calibrate] [--only PART] [--per-format]
                [--calibrate-variants LIST] [--avif-effort N] [--markdown FILE]

FOLDER defaults to ../shared/corpus/photos. Five parts:

1. Bytes and quality. One ladder build with "formats": ["webp", "avif", "jxl"] on every default
   variant. Each rung and sibling is compared with a reference made from the full decode of the
   source (upright, sRGB), reduced with Lanczos3 to the rung's size: butteraugli (libjxl's,
   through its C API: the 3-norm and the maximum) and SSIM on luma (bench.py's, scikit-image's
   formula). Per variant and format: siblings written and skipped, the median of each sibling's
   bytes over its JPEG's, and how many are at least as close to the reference as their JPEG by
   butteraugli (3-norm), by SSIM, and by both. Every jxl sibling is rebuilt with djxl and
   compared with its JPEG byte for byte, and the build is checked by `ladder verify --deep`.
   Beside them, the peers' defaults made from the same reference: WebP q80 and AVIF q50 at
   effort 4 with 4:4:4 chroma (sharp's and eleventy-img's).
2. Encode time per image and format, one thread, from the reference pictures: libvips' JPEG,
   WebP and AVIF savers at ladder's settings (WebP at effort 4 and AVIF at efforts 0 to 2 too;
   one encode, where the thumbnails' search makes up to 4, each measured by butteraugli, timed
   too) and cjxl's
   lossless recompression of the JPEG rung (a process each, its start included).
3. The whole build: a fresh build of FOLDER with every format on every variant against a
   JPEG-only one, in paired rounds (order rotated), CPU time of the build and its render workers
   (perf stat -e task-clock) and wall time; medians and the median of the paired ratios; with
   --per-format, a build with each format alone too, and one with every format on the
   thumbnails and JPEG XL alone on full size.
4. With --calibrate: for each variant and image, the lowest WebP and AVIF quality at which the
   sibling is at least as close to the reference as a JPEG of the variant's quality (and of
   qualities 50 and 95 in the large thumbnail's box) by butteraugli and by SSIM (a bisection),
   and its bytes over the JPEG's; --avif-effort N calibrates AVIF at effort N. At full size the
   largest quality over the images is what Defaults.siblingCalibration holds (the thumbnails
   search their quality per picture, from it).
5. With --only bound: the work that no AVIF or WebP effort saves, against a JPEG-only build's
   CPU: each photo's full-size AVIF and WebP at the fastest effort (0) and their calibrated
   quality, and the 3 butteraugli measures per thumbnail (its JPEG's, its AVIF's and its WebP's)
   that checking siblings per picture needs at the least.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (upright_srgb, luma, ssim)
import butteraugli as libjxl_butteraugli  # noqa: E402

VARIANTS = [("small_thumb", 160, 80), ("large_thumb", 640, 82), ("full", 2560, 85)]
FORMATS = ["webp", "avif", "jxl"]


# MARK: - Butteraugli, libjxl's, through its C API

def butteraugli(reference, picture):
    """(3-norm, max) between two 8-bit sRGB pyvips images of one size."""
    a, b = bytes(rgb(reference).write_to_memory()), bytes(rgb(picture).write_to_memory())
    return libjxl_butteraugli.distance(reference.width, reference.height, a, b)


def rgb(image):
    """An 8-bit, 3-band sRGB picture."""
    if image.bands == 1:
        image = image.bandjoin([image, image])
    elif image.bands > 3:
        image = image[0:3]
    return image.cast("uchar").copy_memory()


def decoded(data):
    import pyvips
    image = pyvips.Image.new_from_buffer(data, "")
    if image.interpretation not in ("srgb", "b-w"):
        image = image.colourspace("srgb")
    return image.cast("uchar").copy_memory()


def measure(reference, picture, reference_luma=None):
    """(butteraugli 3-norm, butteraugli max, SSIM) of `picture` against `reference`."""
    norm3, worst = butteraugli(reference, picture)
    luma_reference = reference_luma if reference_luma is not None else bench.luma(reference).copy_memory()
    return norm3, worst, bench.ssim(bench.luma(picture).copy_memory(), luma_reference)


def as_close(sibling, jpeg):
    """At least as close to the reference by butteraugli (3-norm) and by SSIM."""
    return sibling[0] <= jpeg[0], sibling[2] >= jpeg[2]


# MARK: - Encoders at ladder's settings and at the peers'

def encode(picture, fmt, quality, effort, full_chroma=False):
    if fmt == "jpeg":
        return picture.jpegsave_buffer(Q=quality, optimize_coding=True, strip=True)
    if fmt == "webp":
        return picture.webpsave_buffer(Q=quality, effort=effort, strip=True)
    if fmt == "avif":
        return picture.heifsave_buffer(compression="av1", encoder="aom", Q=quality, effort=effort, bitdepth=8,
                                       subsample_mode="off" if full_chroma else "on", strip=True)
    raise ValueError(fmt)


def reference_for(full, size):
    if size == (full.width, full.height):
        return full
    return full.reduce(full.width / size[0], full.height / size[1], kernel="lanczos3").cast("uchar").copy_memory()


def picture_in(full, box):
    """The picture a variant whose box is `box` pixels is made from: `full` fitted inside it,
    never enlarged, resized as the reference is (`reference_for`)."""
    scale = min(1.0, box / max(full.width, full.height))
    return reference_for(full, (max(1, round(full.width * scale)), max(1, round(full.height * scale))))


def jpeg_sources(folder):
    """The JPEG photos in `folder`, sorted by path."""
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.lower().endswith((".jpg", ".jpeg")))


# MARK: - Part 1: bytes and quality of a build's siblings

def pipeline(folder, formats, avif_effort=None):
    """Every default variant with `formats` (a list, or a list per variant name); a time limit
    that a busy machine cannot break."""
    variants = {}
    for name, _, _ in VARIANTS:
        variant = {"formats": formats.get(name, []) if isinstance(formats, dict) else formats}
        if avif_effort is not None:
            variant["avifEffort"] = avif_effort
        variants[name] = variant
    return {"version": 1, "sources": [folder], "output": "out", "variants": variants,
            "limits": {"timeoutSeconds": 600}}


def build(ladder, work, folder, formats, jobs, avif_effort=None):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "pipeline.json"), "w") as f:
        json.dump(pipeline(folder, formats, avif_effort), f)
    started = time.monotonic()
    perf = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", ladder, "build", "--jobs", str(jobs), "--json"],
                          cwd=work, capture_output=True, text=True)
    wall = time.monotonic() - started
    if perf.returncode != 0:
        sys.exit(f"bench: ladder build failed: {perf.stderr[-2000:]}")
    cpu = next(float(line.split(",")[0]) / 1000 for line in perf.stderr.splitlines() if "task-clock" in line)
    return json.loads(perf.stdout.splitlines()[-1]), cpu, wall


def score_image(job):
    """Every rung and sibling of one image, against the reference."""
    import pyvips
    source, entry, out = job
    full = bench.upright_srgb(source)
    rows = []
    for name, _, quality in VARIANTS:
        variant = entry["variants"][name]
        size = (variant["width"], variant["height"])
        reference = reference_for(full, size)
        reference_luma = bench.luma(reference).copy_memory()
        with open(os.path.join(out, variant["path"]), "rb") as f:
            jpeg_bytes = f.read()
        jpeg = measure(reference, decoded(jpeg_bytes), reference_luma)
        row = {"image": os.path.basename(source), "variant": name, "jpeg": (len(jpeg_bytes),) + jpeg, "siblings": {}}
        for fmt in FORMATS:
            sibling = (variant.get("formats") or {}).get(fmt)
            if sibling is None:
                row["siblings"][fmt] = None
                continue
            path = os.path.join(out, sibling["path"])
            if fmt == "jxl":
                # djxl picks what it writes by the output's extension: .jpg rebuilds the JPEG.
                with tempfile.TemporaryDirectory() as scratch:
                    target = os.path.join(scratch, "rebuilt.jpg")
                    subprocess.run(["djxl", path, target, "--quiet"], capture_output=True)
                    rebuilt = open(target, "rb").read() if os.path.exists(target) else b""
                row["siblings"][fmt] = (sibling["bytes"],) + jpeg + (rebuilt == jpeg_bytes,)
                continue
            with open(path, "rb") as f:
                data = f.read()
            row["siblings"][fmt] = (len(data),) + measure(reference, decoded(data), reference_luma)
        # The peers' defaults, from the same reference.
        for peer, fmt, q in (("webp q80", "webp", 80), ("avif q50", "avif", 50)):
            data = encode(reference, fmt, q, 4, full_chroma=True)
            row["siblings"][peer] = (len(data),) + measure(reference, decoded(data), reference_luma)
        rows.append(row)
    return rows


def quality_part(ladder, folder, jobs, work):
    import multiprocessing
    summary, _, _ = build(ladder, work, folder, FORMATS, jobs)
    verify = subprocess.run([ladder, "verify", "--deep", "--json"], cwd=work, capture_output=True, text=True)
    summary["verified"] = f"exit {verify.returncode}, " + (verify.stdout.strip()[:200] or verify.stderr[-200:])
    with open(os.path.join(work, "out", "manifest.json")) as f:
        manifest = json.load(f)
    root = os.path.dirname(os.path.abspath(folder.rstrip("/")))
    jobs_list = []
    for entry in manifest["images"].values():
        source = os.path.join(root, entry["sources"][0])
        jobs_list.append((source, entry, os.path.join(work, "out")))
    rows = []
    with multiprocessing.Pool(jobs) as pool:
        for image_rows in pool.imap_unordered(score_image, jobs_list):
            rows += image_rows
    return summary, rows


def report_quality(summary, rows, out):
    out.append(f"Build with every format: siblings written {summary.get('siblings', {}).get('written')}, "
               f"skipped as not smaller than their JPEG {summary.get('siblings', {}).get('skipped')}")
    out.append(f"ladder verify --deep: {summary['verified']}")
    out.append("")
    out.append("| variant | format | written / images | bytes / JPEG (median) | lowest..highest | "
               "as close by butteraugli | by SSIM | by both | butteraugli 3-norm: JPEG / it (median) | "
               "SSIM: JPEG / it (median) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for name, _, _ in VARIANTS:
        mine = [r for r in rows if r["variant"] == name]
        for fmt in FORMATS + ["webp q80", "avif q50"]:
            made = [(r["jpeg"], r["siblings"][fmt]) for r in mine if r["siblings"].get(fmt)]
            if not made:
                out.append(f"| {name} | {fmt} | 0 / {len(mine)} | | | | | | | |")
                continue
            ratios = [s[0] / j[0] for j, s in made]
            by_ba = sum(1 for j, s in made if as_close(s[1:], j[1:])[0])
            by_ssim = sum(1 for j, s in made if as_close(s[1:], j[1:])[1])
            both = sum(1 for j, s in made if all(as_close(s[1:], j[1:])))
            extra = ""
            if fmt == "jxl":
                extra = f" (rebuilt byte for byte: {sum(1 for _, s in made if s[4])} of {len(made)})"
            out.append(
                f"| {name} | {fmt}{extra} | {len(made)} / {len(mine)} | {statistics.median(ratios):.3f} | "
                f"{min(ratios):.3f}..{max(ratios):.3f} | {by_ba} | {by_ssim} | {both} | "
                f"{statistics.median(j[1] for j, _ in made):.2f} / {statistics.median(s[1] for _, s in made):.2f} | "
                f"{statistics.median(j[3] for j, _ in made):.4f} / {statistics.median(s[3] for _, s in made):.4f} |")
    total_jpeg = sum(r["jpeg"][0] for r in rows)
    for fmt in FORMATS:
        served = sum((r["siblings"][fmt] or r["jpeg"])[0] for r in rows)
        out.append(f"- all variants, {fmt} where written and the JPEG elsewhere: {served / total_jpeg:.3f} of the "
                   f"JPEG bytes ({total_jpeg} -> {served})")


# MARK: - Part 2: encode time per image and format

def cpu_of(function):
    started = time.process_time()
    result = function()
    return time.process_time() - started, result


def timing_part(folder, out):
    import resource
    sources = jpeg_sources(folder)
    costs = {}
    avif_bytes = {}
    webp_bytes = {}
    for source in sources:
        full = bench.upright_srgb(source)
        for name, box, quality in VARIANTS:
            picture = picture_in(full, box)
            seconds, jpeg = cpu_of(lambda: encode(picture, "jpeg", quality, 0))
            costs.setdefault((name, "jpeg"), []).append(seconds)
            jpeg_picture = decoded(jpeg)
            seconds, _ = cpu_of(lambda: butteraugli(picture, jpeg_picture))
            costs.setdefault((name, "butteraugli, one measure"), []).append(seconds)
            from_jpeg = {"jpeg": len(jpeg)}
            for effort in (defaults_effort("webp"), 4):
                seconds, data = cpu_of(lambda: encode(picture, "webp", defaults_quality("webp", quality), effort))
                costs.setdefault((name, f"webp effort {effort}"), []).append(seconds)
                webp_bytes.setdefault((name, effort), []).append(len(data) / from_jpeg["jpeg"])
            for effort in range(0, 3):
                seconds, data = cpu_of(lambda: encode(picture, "avif", defaults_quality("avif", quality), effort))
                costs.setdefault((name, f"avif effort {effort}"), []).append(seconds)
                avif_bytes.setdefault((name, effort), []).append(len(data) / from_jpeg["jpeg"])
            with tempfile.TemporaryDirectory() as scratch:
                path = os.path.join(scratch, "rung.jpg")
                with open(path, "wb") as f:
                    f.write(jpeg)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(["cjxl", path, os.path.join(scratch, "rung.jxl"), "--lossless_jpeg=1", "-e", "7",
                                "--num_threads=0", "--quiet"], check=True, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                costs.setdefault((name, "jxl (cjxl process)"), []).append(
                    after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    out.append(f"Encode CPU time per image, median over {len(sources)} images, one thread (ms):")
    out.append("")
    out.append("| encoder | " + " | ".join(name for name, _, _ in VARIANTS) + " |")
    out.append("|---|" + "---|" * len(VARIANTS))
    kinds = sorted({kind for _, kind in costs}, key=lambda k: (k != "jpeg", k))
    for kind in kinds:
        cells = [f"{statistics.median(costs[(name, kind)]) * 1000:.1f}" for name, _, _ in VARIANTS]
        out.append(f"| {kind} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("AVIF bytes / JPEG bytes by effort (median): " + "; ".join(
        f"{name}: " + ", ".join(f"e{e} {statistics.median(avif_bytes[(name, e)]):.3f}" for e in range(3))
        for name, _, _ in VARIANTS))
    out.append("")
    out.append("WebP bytes / JPEG bytes by effort (median): " + "; ".join(
        f"{name}: " + ", ".join(f"e{e} {statistics.median(webp_bytes[(name, e)]):.3f}"
                                for e in (defaults_effort("webp"), 4))
        for name, _, _ in VARIANTS))


def defaults_quality(fmt, jpeg_quality):
    """Defaults.siblingQuality, read from the Swift source so that the two never differ."""
    table = calibration_table()[fmt]
    if jpeg_quality <= table[0][0]:
        return table[0][1]
    if jpeg_quality >= table[-1][0]:
        return table[-1][1]
    for (low_j, low_s), (high_j, high_s) in zip(table, table[1:]):
        if jpeg_quality <= high_j:
            import math
            share = (jpeg_quality - low_j) / (high_j - low_j)
            return min(100, math.ceil(low_s + share * (high_s - low_s) - 1e-9))
    return table[-1][1]


def defaults_effort(fmt):
    """Defaults.avifEffort or Defaults.webpEffort, read from the Swift source."""
    import re
    match = re.search(fmt + r"Effort = (\d+)", defaults_source())
    return int(match.group(1))


def defaults_source():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "LadderCore", "Configuration",
                        "Defaults.swift")
    with open(path) as f:
        return f.read()


def calibration_table():
    import re
    text = defaults_source()
    table = {}
    for fmt in ("webp", "avif"):
        match = re.search(r"\." + fmt + r": \[([^\]]*)\]", text)
        table[fmt] = [(int(a), int(b)) for a, b in re.findall(r"\((\d+), (\d+)\)", match.group(1))]
    return table


# MARK: - Part 3: the whole build, with every format against JPEG only

def build_part(ladder, folder, jobs, rounds, work, out, per_format=False):
    configurations = [("JPEG only", []), ("every format", FORMATS)]
    if per_format:
        configurations += [(f"{fmt} only", [fmt]) for fmt in FORMATS]
        configurations.append(("every format on the thumbnails, jxl on full",
                               {"small_thumb": FORMATS, "large_thumb": FORMATS, "full": ["jxl"]}))
    results = {label: [] for label, _ in configurations}
    for round_index in range(rounds):
        order = configurations if round_index % 2 == 0 else configurations[::-1]
        for label, formats in order:
            target = os.path.join(work, f"build-{round_index}-{len(formats)}")
            shutil.rmtree(target, ignore_errors=True)
            _, cpu, wall = build(ladder, target, folder, formats, jobs)
            results[label].append((cpu, wall))
            shutil.rmtree(target, ignore_errors=True)
    base = results["JPEG only"]
    out.append(f"Fresh build of {folder} with --jobs {jobs}, {rounds} paired rounds (medians; ratio: the median of "
               "each round's ratio to the JPEG-only build):")
    out.append("")
    out.append("| build | CPU s | wall s | CPU / JPEG only | wall / JPEG only |")
    out.append("|---|---|---|---|---|")
    for label, _ in configurations:
        mine = results[label]
        out.append(f"| {label} | {statistics.median(c for c, _ in mine):.2f} | "
                   f"{statistics.median(w for _, w in mine):.2f} | "
                   f"{statistics.median(m[0] / b[0] for b, m in zip(base, mine)):.2f}x | "
                   f"{statistics.median(m[1] / b[1] for b, m in zip(base, mine)):.2f}x |")


# MARK: - Part 5: the least that every format adds to a build

def bound_part(ladder, folder, jobs, work, out):
    """What no AVIF or WebP effort can save: the fastest encode of each full-size sibling at its
    calibrated quality, and the butteraugli measures that checking a thumbnail's siblings against
    its JPEG needs at the least (the JPEG's and one per sibling), against a JPEG-only build."""
    import pyvips
    _, jpeg_cpu, _ = build(ladder, os.path.join(work, "bound"), folder, [], jobs)
    sources = jpeg_sources(folder)
    spent = {"avif effort 0, full": 0.0, "webp effort 0, full": 0.0, "butteraugli, 3 per thumbnail": 0.0}
    for source in sources:
        full = bench.upright_srgb(source)
        for name, box, quality in VARIANTS:
            picture = picture_in(full, box)
            if name == "full":
                for fmt in ("avif", "webp"):
                    seconds, _ = cpu_of(lambda: encode(picture, fmt, defaults_quality(fmt, quality), 0))
                    spent[f"{fmt} effort 0, full"] += seconds
            else:
                jpeg_picture = decoded(encode(picture, "jpeg", quality, 0))
                for _ in range(3):
                    seconds, _ = cpu_of(lambda: butteraugli(picture, jpeg_picture))
                    spent["butteraugli, 3 per thumbnail"] += seconds
    out.append(f"JPEG-only build of {len(sources)} photos (--jobs {jobs}): {jpeg_cpu:.2f} s CPU. Work no effort saves, "
               "CPU s summed over the photos, one thread, and its share of that build:")
    out.append("")
    out.append("| work | CPU s | / JPEG-only build |")
    out.append("|---|---|---|")
    for kind, seconds in spent.items():
        out.append(f"| {kind} | {seconds:.2f} | {seconds / jpeg_cpu:.2f}x |")
    total = sum(spent.values())
    out.append(f"| all of it | {total:.2f} | {total / jpeg_cpu:.2f}x |")


# MARK: - Part 4: calibration

AVIF_EFFORT = None  # --avif-effort: calibrate at this effort instead of Defaults.avifEffort


def lowest_quality(reference, reference_luma, fmt, jpeg, full_chroma, jpeg_bytes):
    """(the lowest quality at which `fmt` is at least as close as `jpeg` by both measures, its
    bytes over the JPEG's): a bisection, assuming closeness grows with quality; (101, None) when
    not even 100 is."""
    effort = AVIF_EFFORT if fmt == "avif" and AVIF_EFFORT is not None else defaults_effort(fmt)

    def holds(q):
        data = encode(reference, fmt, q, effort, full_chroma)
        return all(as_close(measure(reference, decoded(data), reference_luma), jpeg)), len(data) / jpeg_bytes
    low, high = 1, 100
    held, ratio = holds(high)
    if not held:
        return 101, None
    while low < high:
        middle = (low + high) // 2
        held, middle_ratio = holds(middle)
        if held:
            high, ratio = middle, middle_ratio
        else:
            low = middle + 1
    return low, ratio


def calibrate_image(job):
    source, cases = job
    full = bench.upright_srgb(source)
    found = {}
    for name, box, quality in cases:
        reference = picture_in(full, box)
        reference_luma = bench.luma(reference).copy_memory()
        jpeg_data = encode(reference, "jpeg", quality, 0)
        jpeg = measure(reference, decoded(jpeg_data), reference_luma)
        for fmt in ("webp", "avif"):
            found[(name, quality, fmt)] = lowest_quality(reference, reference_luma, fmt, jpeg, quality >= 90,
                                                         len(jpeg_data))
    return os.path.basename(source), found


def calibration_part(folder, jobs, out, variants=None):
    """`variants`: names ("large_thumb"), or names with a JPEG quality ("large_thumb:95")."""
    import multiprocessing
    cases = [(name, box, quality) for name, box, quality in VARIANTS] + [
        ("large_thumb", 640, 50), ("large_thumb", 640, 95)]
    if variants:
        cases = [case for case in cases if case[0] in variants or f"{case[0]}:{case[2]}" in variants]
    sources = jpeg_sources(folder)
    results = {}
    with multiprocessing.Pool(jobs) as pool:
        for image, found in pool.imap_unordered(calibrate_image, [(s, cases) for s in sources]):
            results[image] = found
    out.append("Calibration: lowest quality at which each sibling is at least as close as the JPEG by butteraugli "
               f"and SSIM (101: none is), largest and median over the images, AVIF at effort "
               f"{AVIF_EFFORT if AVIF_EFFORT is not None else defaults_effort('avif')}; and the median of the bytes "
               "over the JPEG's at each image's own quality (none: counted as 1, the JPEG is kept):")
    out.append("")
    out.append("| variant | JPEG quality | WebP: largest / median; bytes | AVIF: largest / median; bytes |")
    out.append("|---|---|---|---|")
    for name, _, quality in cases:
        cells = []
        for fmt in ("webp", "avif"):
            values = [found[(name, quality, fmt)][0] for found in results.values()]
            ratios = [min(1.0, found[(name, quality, fmt)][1] or 1.0) for found in results.values()]
            cells.append(f"{max(values)} / {statistics.median(values):g}; {statistics.median(ratios):.3f}")
        out.append(f"| {name} | {quality} | " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?")
    parser.add_argument("--ladder", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--per-format", action="store_true",
                        help="the build part also times a build with each format alone")
    parser.add_argument("--only", choices=["quality", "timing", "build", "calibrate", "bound"])
    parser.add_argument("--calibrate-variants",
                        help="comma-separated variants to calibrate, each alone (small_thumb) or with one of its "
                             "JPEG qualities (large_thumb:82); default: all")
    parser.add_argument("--avif-effort", type=int, help="calibrate AVIF at this effort (default: ladder's)")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    folder = args.folder or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus",
                                         "photos")
    folder = os.path.abspath(folder)
    global AVIF_EFFORT
    AVIF_EFFORT = args.avif_effort
    import pyvips
    pyvips.cache_set_max(0)
    lines = [f"scripts/bench --formats on {folder}, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores", ""]
    printed = 0
    with tempfile.TemporaryDirectory() as work:
        parts = [args.only] if args.only else ["quality", "timing", "build"] + (["calibrate"] if args.calibrate else [])
        for part in parts:
            if part == "quality":
                summary, rows = quality_part(args.ladder, folder, args.jobs, os.path.join(work, "quality"))
                report_quality(summary, rows, lines)
            elif part == "timing":
                timing_part(folder, lines)
            elif part == "build":
                build_part(args.ladder, folder, args.jobs, args.rounds, work, lines, args.per_format)
            elif part == "bound":
                bound_part(args.ladder, folder, args.jobs, work, lines)
            else:
                calibration_part(folder, args.jobs, lines,
                                 args.calibrate_variants.split(",") if args.calibrate_variants else None)
            lines.append("")
            print("\n".join(lines[printed:]), flush=True)
            printed = len(lines)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("\n".join(lines))


if __name__ == "__main__":
    main()
