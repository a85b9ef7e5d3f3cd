#!/usr/bin/env python3
"""The smallest AVIF any encoder setting makes at the JPEG rung's quality: the bound on what
ladder's AVIF thumbnails can save. Run through scripts/formats-oracle.

  scripts/formats-oracle [FOLDER] [--jobs N] [--variants LIST] [--efforts LIST] [--slow-efforts LIST]
                         [--margin M] [--json FILE]

For every photo of FOLDER (default ../shared/corpus/photos) and every variant of LIST (default
small_thumb and large_thumb), the resized picture is made as scripts/bench --formats makes it (the
full decode, upright, sRGB, reduced with Lanczos3 to the variant's box) and its JPEG rung is
encoded from it as the bench does (libvips' jpegsave at the variant's quality, optimized Huffman
tables, 4:2:0). Then AVIF is encoded from the same picture with libvips' heifsave (AV1, libaom,
8-bit) at every effort of LIST (libaom speed 9 - effort) with 4:2:0 and with 4:4:4 chroma, and
for each setting the lowest quality whose AVIF is at least as close to the picture as the JPEG
by butteraugli's 3-norm and by SSIM of the luma planes (scripts/reference/closeness.py, decoded
with libvips; with M, each better by that share, as ladder's search asks with 0.02) is found
quality by quality:

- the first effort bisects the qualities 1...100, then steps down one quality at a time past the
  lowest that held until 2 in a row fail (closeness need not grow with quality at every step);
- every later effort starts from the previous effort's lowest quality, steps up one at a time
  until one holds, then down as before.

The smallest holding AVIF of a setting is the fewest bytes among every quality tried that held.
Per picture the smallest over all settings is the bound; its median over the pictures is the
best that any choice of quality, effort and chroma reaches. At the first effort the lowest
quality that holds by butteraugli alone and by SSIM alone is bisected too, to show which
measure binds. Efforts in --slow-efforts are tried only with the chroma that won at the efforts
before, from its lowest quality there (an encode of 640 x 480 takes seconds from effort 5 up).
"""
import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "reference"))
import bench  # noqa: E402  (upright_srgb)
import bench_formats  # noqa: E402  (picture_in, encode: the bench's own picture and JPEG)
import closeness  # noqa: E402  (the measures, apart from ladder)

VARIANTS = {name: (box, quality) for name, box, quality in bench_formats.VARIANTS}
CHROMA = {"4:2:0": False, "4:4:4": True}
EFFORTS = list(range(10))


def pixels(image):
    import numpy as np
    image = bench_formats.rgb(image)
    return np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=(image.height, image.width, 3))


def decoded_pixels(data):
    return pixels(bench_formats.decoded(data))


class Picture:
    """One resized picture, its JPEG rung, and every AVIF of it tried, measured once."""

    def __init__(self, source, variant, margin):
        box, quality = VARIANTS[variant]
        full = bench.upright_srgb(source)
        self.image = bench_formats.picture_in(full, box)
        self.reference = closeness.Reference(pixels(self.image))
        jpeg = bench_formats.encode(self.image, "jpeg", quality, 0)
        self.jpeg_bytes = len(jpeg)
        self.jpeg = self.reference.closeness(decoded_pixels(jpeg))
        self.margin = margin
        self.tried = {}
        self.encode_seconds = {}

    def avif(self, quality, effort, chroma):
        """(bytes, butteraugli, SSIM) of the AVIF at these settings."""
        key = (quality, effort, chroma)
        if key not in self.tried:
            started = time.process_time()
            data = bench_formats.encode(self.image, "avif", quality, effort, CHROMA[chroma])
            self.encode_seconds.setdefault((effort, chroma), []).append(time.process_time() - started)
            self.tried[key] = (len(data),) + self.reference.closeness(decoded_pixels(data))
        return self.tried[key]

    def holds(self, quality, effort, chroma, by=("butteraugli", "ssim")):
        _, distance, ssim = self.avif(quality, effort, chroma)
        keep = 1 - self.margin
        return ((distance <= self.jpeg[0] * keep) if "butteraugli" in by else True) and (
            (1 - ssim <= (1 - self.jpeg[1]) * keep) if "ssim" in by else True)

    def bisect(self, effort, chroma, by=("butteraugli", "ssim")):
        """The lowest quality that holds, assuming closeness grows with quality; None if 100 does not."""
        if not self.holds(100, effort, chroma, by):
            return None
        low, high = 1, 100
        while low < high:
            middle = (low + high) // 2
            if self.holds(middle, effort, chroma, by):
                high = middle
            else:
                low = middle + 1
        return low

    def descend(self, start, effort, chroma):
        """From a quality that holds, down one at a time until 2 in a row fail: the lowest that held."""
        lowest, fails, quality = start, 0, start - 1
        while quality >= 1 and fails < 2:
            if self.holds(quality, effort, chroma):
                lowest, fails = quality, 0
            else:
                fails += 1
            quality -= 1
        return lowest

    def search(self, effort, chroma, start):
        """The lowest holding quality at this setting, from `start` (None: bisect)."""
        if start is None:
            found = self.bisect(effort, chroma)
            return None if found is None else self.descend(found, effort, chroma)
        quality = start
        while quality <= 100 and not self.holds(quality, effort, chroma):
            quality += 1
        return None if quality > 100 else self.descend(quality, effort, chroma)

    def smallest(self, effort, chroma):
        """(bytes, quality) of the smallest AVIF tried at this setting that held."""
        held = [(entry[0], q) for (q, e, c), entry in self.tried.items()
                if e == effort and c == chroma and self.holds(q, e, c)]
        return min(held) if held else None


def oracle(job):
    source, variant, efforts, slow_efforts, margin = job
    import pyvips
    pyvips.cache_set_max(0)
    picture = Picture(source, variant, margin)
    lowest = {}
    for chroma in CHROMA:
        start = None
        for effort in efforts:
            found = picture.search(effort, chroma, start)
            lowest[(effort, chroma)] = found
            start = found if found is not None else start
    alone = {}
    for chroma in CHROMA:
        for by in ("butteraugli", "ssim"):
            found = picture.bisect(efforts[0], chroma, (by,))
            alone[(by, chroma)] = None if found is None else picture.avif(found, efforts[0], chroma)[0]
    if slow_efforts:
        chroma = min(CHROMA, key=lambda c: min((picture.smallest(e, c) or (1 << 60, 0))[0] for e in efforts))
        start = lowest.get((efforts[-1], chroma))
        for effort in slow_efforts:
            found = picture.search(effort, chroma, start)
            lowest[(effort, chroma)] = found
            start = found if found is not None else start
    settings = {}
    for (effort, chroma) in lowest:
        smallest = picture.smallest(effort, chroma)
        settings[f"{effort} {chroma}"] = None if smallest is None else {
            "quality": smallest[1], "ratio": smallest[0] / picture.jpeg_bytes,
            "encode_ms": 1000 * statistics.median(picture.encode_seconds[(effort, chroma)])}
    return {"image": os.path.basename(source), "variant": variant, "jpeg_bytes": picture.jpeg_bytes,
            "jpeg": picture.jpeg, "encodes": len(picture.tried), "settings": settings,
            "alone": {f"{by} {chroma}": None if b is None else b / picture.jpeg_bytes
                      for (by, chroma), b in alone.items()}}


def median_or_none(values):
    """The median, a missing value counted as no saving at all (the JPEG is kept)."""
    values = [1.0 if v is None else v for v in values]
    return statistics.median(values) if values else None


def report(rows, variants, efforts, slow_efforts, margin):
    lines = []
    for variant in variants:
        mine = [r for r in rows if r["variant"] == variant]
        if not mine:
            continue
        best = []
        winners = {}
        for row in mine:
            held = [(s["ratio"], key) for key, s in row["settings"].items() if s]
            if held:
                ratio, key = min(held)
                best.append(ratio)
                winners[key] = winners.get(key, 0) + 1
            else:
                best.append(None)
        lines.append(f"{variant} ({len(mine)} pictures, AVIF as close as the JPEG by butteraugli and SSIM"
                     f"{f', {margin} better' if margin else ''}): smallest AVIF / JPEG bytes, median "
                     f"{median_or_none(best):.3f}, lowest {min(b for b in best if b is not None):.3f}, "
                     f"highest {max(b for b in best if b is not None):.3f}; pictures under 0.6: "
                     f"{sum(1 for b in best if b is not None and b <= 0.6)}; none holds: "
                     f"{sum(1 for b in best if b is None)}; settings that gave it (effort chroma: pictures): "
                     + ", ".join(f"{k}: {n}" for k, n in sorted(winners.items(), key=lambda kv: -kv[1])))
        lines.append("")
        lines.append("| effort | 4:2:0 bytes / JPEG | its quality | encode ms | 4:4:4 bytes / JPEG | its quality | "
                     "encode ms |")
        lines.append("|---|---|---|---|---|---|---|")
        for effort in efforts + slow_efforts:
            cells = []
            for chroma in CHROMA:
                found = [r["settings"].get(f"{effort} {chroma}") for r in mine if f"{effort} {chroma}" in r["settings"]]
                if not found:
                    cells += ["", "", ""]
                    continue
                cells.append(f"{median_or_none([f and f['ratio'] for f in found]):.3f}"
                             + (f" ({len(found)} pictures)" if len(found) != len(mine) else ""))
                cells.append(f"{statistics.median(f['quality'] for f in found if f):g}")
                cells.append(f"{statistics.median(f['encode_ms'] for f in found if f):.0f}")
            lines.append(f"| {effort} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append(f"At effort {efforts[0]}, as close by one measure alone (median bytes / JPEG): " + ", ".join(
            f"{key} {median_or_none([r['alone'][key] for r in mine]):.3f}"
            for key in ("butteraugli 4:2:0", "ssim 4:2:0", "butteraugli 4:4:4", "ssim 4:4:4")))
        lines.append("")
    return lines


def parse_list(text):
    return [int(v) for v in text.split(",")] if text else []


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", default=os.path.join(HERE, "..", "..", "shared", "corpus", "photos"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--variants", default="small_thumb,large_thumb")
    parser.add_argument("--efforts", default=",".join(map(str, EFFORTS)), help="comma-separated, 0...9")
    parser.add_argument("--slow-efforts", default="", help="efforts tried only with the chroma that won before")
    parser.add_argument("--margin", type=float, default=0.0)
    parser.add_argument("--json", help="write every picture's result here")
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    if not os.path.isdir(folder):
        sys.exit(f"formats-oracle: {folder}: no such folder (the corpus photos)")
    variants = args.variants.split(",")
    efforts, slow = parse_list(args.efforts), parse_list(args.slow_efforts)
    sources = bench_formats.jpeg_sources(folder)
    # The large pictures first, so that the last jobs are short.
    jobs = [(s, v, efforts, slow, args.margin)
            for v in sorted(variants, key=lambda v: -VARIANTS[v][0]) for s in sources]
    rows = []
    started = time.monotonic()
    with multiprocessing.Pool(args.jobs) as pool:
        for row in pool.imap_unordered(oracle, jobs):
            rows.append(row)
            best = min(((s["ratio"], key) for key, s in row["settings"].items() if s), default=None)
            print(f"[{len(rows)}/{len(jobs)} {time.monotonic() - started:.0f} s] {row['variant']} {row['image']}: "
                  f"{row['encodes']} encodes, smallest AVIF as close: "
                  + ("none" if best is None else f"{best[0]:.3f} (effort {best[1]})") + "; by setting: "
                  + ", ".join(f"{key} {s['ratio']:.3f} q{s['quality']}" for key, s in row["settings"].items() if s),
                  file=sys.stderr, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"scripts/formats-oracle on {folder}, {time.strftime('%Y-%m-%d')}, efforts {args.efforts}"
          + (f", and {args.slow_efforts} with the chroma that won" if slow else "") + "\n")
    print("\n".join(report(rows, variants, efforts, slow, args.margin)))


if __name__ == "__main__":
    main()
