#!/usr/bin/env python3
"""Benchmarks of `ladder verify`, run through scripts/bench-verify.

1. Plain verify against sha256sum. N images are generated (see `generate`) and built once with
   the default pipeline. Then, in each round and in
   alternating order: `sha256sum` over every file verify reads (the sources, every variant and
   the manifest; one process, as CI would run it), `ladder verify --no-cache` (SHA-1 of every
   source, SHA-256 and the segment structure of every variant, the placeholder's variant
   decoded, all cores), and `ladder verify` again (the placeholder checks that held on the run
   before are not decoded again, as on CI's next commit); with --baseline, an earlier ladder's
   `verify --no-cache` too. Files are read once before timing, so all read from the page cache. The
   figure is the median of the per-round ratios of wall times; CPU times (user + system) are
   printed beside them.
   `ladder verify --deep` (which decodes every variant) is timed beside them for comparison.
2. The replay cache: `ladder verify --replay` on a subset, with an empty cache and then with the
   cache the first run left; median times.
3. The strict JPEG check: `ladder build` of a photo folder from scratch under decoding.failOn
   "warning" (which reads every JPEG source to its end of image with libjpeg) and "error" (which
   does not), in alternating order; the median ratio is the check's cost relative to a build.
"""
import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(command, cwd, check=True):
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if check and result.returncode != 0:
        sys.exit(f"bench-verify: {' '.join(command)} failed ({result.returncode}): {result.stderr.decode()[-2000:]}")
    return elapsed


def cpu_seconds():
    """User and system time of the children waited for so far: what `perf stat -e task-clock`
    counts for a process tree, and far less disturbed by a busy machine than wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(command, cwd):
    """Runs `command` (which must succeed); returns its wall and CPU seconds."""
    before = cpu_seconds()
    wall = run(command, cwd)
    return wall, cpu_seconds() - before


def generate(folder, count, distinct=200):
    """`count` different files: `distinct` generated pictures (varied gradients with noise,
    240x160 to 480x360, JPEG Q85), each file one of them with its index in a JPEG comment, so
    that every file has its own SHA-1 and is built and verified as an image of its own."""
    import pyvips
    rng = random.Random(1)
    os.makedirs(folder, exist_ok=True)
    bases = []
    for index in range(min(distinct, count)):
        width, height = rng.randrange(240, 481), rng.randrange(160, 361)
        x = pyvips.Image.xyz(width, height)
        r = x[0] * (255.0 / width) + index % 97
        g = x[1] * (255.0 / height) + (index * 7) % 89
        b = (x[0] + x[1]) * (127.0 / (width + height)) + pyvips.Image.gaussnoise(width, height, sigma=18)
        bases.append(bytes(r.bandjoin([g, b]).cast("uchar").jpegsave_buffer(Q=85, strip=True)))
    for index in range(count):
        path = os.path.join(folder, f"img{index:05d}.jpg")
        if os.path.exists(path):
            continue
        base = bases[index % len(bases)]
        text = f"bench image {index}".encode()
        comment = b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text
        with open(path + ".tmp", "wb") as f:
            f.write(base[:2] + comment + base[2:])
        os.replace(path + ".tmp", path)


def files_read_by_verify(work):
    paths = []
    for top in ("photos", "build"):
        for folder, _, names in os.walk(os.path.join(work, top)):
            paths += [os.path.join(folder, name) for name in names]
    return sorted(paths)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ladder", required=True)
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--replay-images", type=int, default=200)
    parser.add_argument("--strict-folder")
    parser.add_argument("--work", help="keep the generated images here between runs")
    parser.add_argument("--markdown")
    parser.add_argument("--no-deep", action="store_true", help="leave out `ladder verify --deep`")
    parser.add_argument(
        "--baseline", help="another ladder executable whose plain verify is timed in the same rounds")
    parser.add_argument(
        "--parts", default="verify,replay,strict", help="which measures to take (comma-separated)")
    args = parser.parse_args()
    ladder = args.ladder

    work = args.work or tempfile.mkdtemp(prefix="ladder-bench-verify-")
    lines = [f"machine: {platform.node()}, {os.cpu_count()} cores, {platform.platform()}",
             f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", ""]

    parts = set(args.parts.split(","))

    if "verify" in parts or "replay" in parts:
        prepare(args, work, ladder)
    if "verify" in parts:
        lines += measure_verify(args, work, ladder, deep=not args.no_deep)
    if "replay" in parts:
        lines += measure_replay(args, work, ladder)
    if "strict" in parts:
        lines += measure_strict(args, work, ladder)

    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


def prepare(args, work, ladder):
    print(f"bench-verify: generating {args.images} images in {work}", file=sys.stderr)
    generate(os.path.join(work, "photos"), args.images)
    with open(os.path.join(work, "pipeline.json"), "w") as f:
        json.dump({"sources": ["photos"]}, f)
    run([ladder, "build", "--quiet"], work)


def measure_verify(args, work, ladder, deep=True):
    """Times verify against sha256sum over the same files; with `deep`, `verify --deep` beside;
    with `args.baseline` (another ladder executable), that one's plain verify too, in the same
    rounds. The commands' order rotates from round to round, so that each takes every place
    under the same load."""
    files = files_read_by_verify(work)
    total = sum(os.path.getsize(path) for path in files)
    listing = os.path.join(work, "files.txt")
    with open(listing, "wb") as f:
        f.write(b"\0".join(path.encode() for path in files))
    commands = [("sha256sum", ["sh", "-c", f"xargs -0 sha256sum < '{listing}' > /dev/null"]),
                ("verify", [ladder, "verify", "--quiet", "--no-cache"]),
                ("again", [ladder, "verify", "--quiet"])]
    baseline = getattr(args, "baseline", None)
    if baseline:
        commands.append(("baseline", [os.path.abspath(baseline), "verify", "--quiet", "--no-cache"]))
    for _, command in commands:
        run(command, work)  # warm the page cache
    rows = []
    for round_index in range(args.rounds):
        shift = round_index % len(commands)
        order = commands[shift:] + commands[:shift]
        times = {name: run_timed(command, work) for name, command in order}
        if deep:
            times["deep"] = run_timed([ladder, "verify", "--quiet", "--deep"], work)
        rows.append(times)
        print(f"  round {round_index + 1}: " + ", ".join(
            f"{k} {wall:.2f} s ({cpu:.2f} s CPU)" for k, (wall, cpu) in times.items()), file=sys.stderr)
    names = [name for name, _ in commands] + (["deep"] if deep else [])
    labels = {"sha256sum": "`xargs -0 sha256sum` (one process)", "verify": "`ladder verify --no-cache`",
              "again": "`ladder verify`, its run before kept", "deep": "`ladder verify --deep`",
              "baseline": f"`ladder verify --no-cache`, baseline ({baseline})"}

    def ratio(name, round_row):
        return round_row[name][0] / round_row["sha256sum"][0]

    lines = [
        f"### verify against sha256sum: {args.images} images, {len(files)} files, {total / 1e6:.0f} MB",
        "",
        "| command | median s | CPU s (median) | ratio to sha256sum, median of rounds | per round |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        wall = statistics.median(row[name][0] for row in rows)
        cpu = statistics.median(row[name][1] for row in rows)
        ratios = [ratio(name, row) for row in rows]
        target = " (target ≤ 1.5)" if name == "verify" else ""
        lines.append(f"| {labels[name]} | {wall:.2f} | {cpu:.2f} | {statistics.median(ratios):.2f}{target} | "
                     + " ".join(f"{value:.2f}" for value in ratios) + " |")
    return lines + [""]


def measure_replay(args, work, ladder):
    subset = os.path.join(work, "replay")
    shutil.rmtree(subset, ignore_errors=True)
    os.makedirs(os.path.join(subset, "photos"))
    for name in sorted(os.listdir(os.path.join(work, "photos")))[: args.replay_images]:
        shutil.copy(os.path.join(work, "photos", name), os.path.join(subset, "photos", name))
    with open(os.path.join(subset, "pipeline.json"), "w") as f:
        json.dump({"sources": ["photos"]}, f)
    run([ladder, "build", "--quiet"], subset)
    cold, warm = [], []
    for _ in range(args.rounds):
        shutil.rmtree(os.path.join(subset, ".ladder", "replay-cache"), ignore_errors=True)
        cold.append(run([ladder, "verify", "--quiet", "--replay"], subset))
        warm.append(run([ladder, "verify", "--quiet", "--replay"], subset))
    return [
        f"### verify --replay with the replay cache: {args.replay_images} images",
        "",
        "| run | median s |",
        "|---|---|",
        f"| empty cache (every image replayed) | {statistics.median(cold):.2f} |",
        f"| cache from the previous run (nothing changed) | {statistics.median(warm):.2f} |",
        "",
    ]


def measure_strict(args, work, ladder):
    strict_folder = args.strict_folder
    if not strict_folder:
        corpus = os.path.join("..", "shared", "corpus", "photos")
        strict_folder = corpus if os.path.isdir(corpus) else os.path.join("examples", "photos")
    strict_folder = os.path.abspath(strict_folder)
    strict = os.path.join(work, "strict")
    os.makedirs(strict, exist_ok=True)
    sources = [n for n in os.listdir(strict_folder) if n.lower().endswith((".jpg", ".jpeg"))]
    builds = {"warning": [], "error": []}
    for round_index in range(args.rounds):
        order = ["warning", "error"] if round_index % 2 == 0 else ["error", "warning"]
        for fail_on in order:
            shutil.rmtree(os.path.join(strict, "build"), ignore_errors=True)
            shutil.rmtree(os.path.join(strict, ".ladder"), ignore_errors=True)
            with open(os.path.join(strict, "pipeline.json"), "w") as f:
                json.dump({"sources": [strict_folder], "decoding": {"failOn": fail_on}}, f)
            builds[fail_on].append(run([ladder, "build", "--quiet"], strict, check=False))
    pairs = [w / e for w, e in zip(builds["warning"], builds["error"])]
    return [
        f"### the strict JPEG check: a build of {len(sources)} JPEG photos ({os.path.relpath(strict_folder)})",
        "",
        "| decoding.failOn | median s |",
        "|---|---|",
        f"| \"error\" (no read to the end of image) | {statistics.median(builds['error']):.2f} |",
        f"| \"warning\" (every JPEG read to its end by libjpeg) | {statistics.median(builds['warning']):.2f} |",
        f"| ratio (median of paired rounds) | {statistics.median(pairs):.3f} |",
        "",
    ]


if __name__ == "__main__":
    main()
