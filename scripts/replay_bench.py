#!/usr/bin/env python3
"""What replaying costs, measured in one run (through scripts/replay-bench).

1. `ladder replay` of one file against a one-shot decode of it. The files are the full-size
   progressive variants (2560 px box, 5 scans) that `ladder build` makes of FOLDER's images.
   - In process (`ladder-bench replay-timing`, from Benchmarks/, rounds interleaved): a one-shot libjpeg-turbo decode of
     the whole picture, as a viewer given the complete file does, against ProgressiveReplay (what
     `ladder replay` does per file), DownloadQuality(measuring:) (what scoring a candidate scan
     script costs) and one SSIM at the file's size. The ratio is taken per file and round, then
     the median, in wall time and in CPU time of the process (the replay measures on all cores,
     so its wall time depends on how many are free; its CPU time hardly does).
   - The same on one core (`taskset -c LAST`), where nothing overlaps.
   - As processes: `ladder replay FILE --json` against `djpeg -dct int FILE` (libjpeg-turbo's own
     command-line decoder), alternating, wall time, medians.
2. `ladder build --report DIR` against `ladder build`, each a fresh build of FOLDER into its own
   folder, alternating, with `--jobs N`: the extra CPU time (user + system of the whole process
   tree) per image, and the extra wall time times the jobs per image.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, cwd=None):
    """(wall seconds, CPU seconds of the process tree) of one run; exits on failure."""
    cpu = cpu_seconds()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if done.returncode not in (0,):
        sys.exit(f"replay-bench: {' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return wall, cpu_seconds() - cpu


def build(ladder, images, folder, jobs, report):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, "pipeline.json"), "w") as f:
        f.write(json.dumps({"sources": [images]}))
    command = [ladder, "build", "--jobs", str(jobs), "--quiet"]
    if report:
        command += ["--report", "report"]
    return timed(command, cwd=folder)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?")
    parser.add_argument("--ladder", required=True)
    parser.add_argument("--bench", required=True, help="Benchmarks/.build/release/ladder-bench")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--limit", type=int, help="only the first N files of FOLDER, by name")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    images = args.folder or ("../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos")
                             else "examples/photos")
    images = os.path.abspath(images)
    work = tempfile.mkdtemp(prefix="ladder-replay-bench-")
    try:
        if args.limit:
            chosen = os.path.join(work, "sources")
            os.makedirs(chosen)
            for name in sorted(n for n in os.listdir(images) if not n.startswith("."))[:args.limit]:
                shutil.copy(os.path.join(images, name), os.path.join(chosen, name))
            images = chosen
        # The files to replay: the full-size variants of a plain build.
        build(args.ladder, images, os.path.join(work, "files"), args.jobs, report=False)
        with open(os.path.join(work, "files", "build/variants/manifest.json")) as f:
            manifest = json.load(f)
        count = len(manifest["images"])
        files = sorted(os.path.join(work, "files", "build/variants", entry["variants"]["full"]["path"])
                       for entry in manifest["images"].values() if "full" in entry["variants"])

        def replay_timing(prefix):
            timing = subprocess.run([*prefix, args.bench, "replay-timing", *files, "--rounds", str(args.rounds)],
                                    capture_output=True, text=True)
            if timing.returncode != 0:
                sys.exit(f"replay-bench: ladder-bench replay-timing failed: {timing.stderr[-2000:]}")
            return [json.loads(line) for line in timing.stdout.splitlines()]

        lines = replay_timing([])
        # The same on one core (the last), where the replay's measures cannot overlap anything.
        one_core = replay_timing(["taskset", "-c", str(os.cpu_count() - 1)]) if shutil.which("taskset") else None

        process_ratios = []
        for path in files:
            replay_walls, djpeg_walls = [], []
            for round_index in range(args.rounds):
                order = [("replay", [args.ladder, "replay", path, "--json"]),
                         ("djpeg", ["djpeg", "-dct", "int", "-outfile", os.devnull, path])]
                if round_index % 2:
                    order.reverse()
                for name, command in order:
                    wall, _ = timed(command)
                    (replay_walls if name == "replay" else djpeg_walls).append(wall)
            process_ratios.append(statistics.median(replay_walls) / statistics.median(djpeg_walls))

        plain, reported = [], []
        for round_index in range(args.rounds):
            order = [False, True] if round_index % 2 == 0 else [True, False]
            for report in order:
                result = build(args.ladder, images, os.path.join(work, "report" if report else "plain"),
                               args.jobs, report)
                (reported if report else plain).append(result)
        extra_cpu = statistics.median(r[1] for r in reported) - statistics.median(p[1] for p in plain)
        extra_wall = statistics.median(r[0] for r in reported) - statistics.median(p[0] for p in plain)

        # A build from before the CPU fields prints none: those rows read "nan".
        median = lambda key: statistics.median(line[key] for line in lines) if key in lines[0] else float("nan")
        out = []
        out.append(f"{time.strftime('%Y-%m-%d', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores "
                   f"({platform.processor() or platform.platform()}), {len(files)} full-size variants of "
                   f"{args.folder or 'the default folder'}{f' (first {args.limit})' if args.limit else ''} "
                   f"({statistics.median(line['pixels'] for line in lines) / 1e6:.1f} MP median), "
                   f"{args.rounds} rounds, medians.")
        out.append("")
        out.append("| measure | median |")
        out.append("|---|---|")
        out.append(f"| one-shot decode (libjpeg-turbo, whole picture) | {median('decodeSeconds') * 1000:.1f} ms |")
        out.append(f"| replay (what `ladder replay` does per file) | {median('replaySeconds') * 1000:.1f} ms |")
        out.append(f"| **replay / one-shot decode, in process** | **{median('replayToDecode'):.2f}x** |")
        out.append(f"| one-shot decode, CPU | {median('decodeCPUSeconds') * 1000:.1f} ms |")
        out.append(f"| replay, CPU (all threads) | {median('replayCPUSeconds') * 1000:.1f} ms |")
        out.append(f"| **replay / one-shot decode, CPU** | **{median('replayToDecodeCPU'):.2f}x** |")
        if one_core:
            one = lambda key: statistics.median(line[key] for line in one_core)
            out.append(f"| replay / one-shot decode, in process on one core (`taskset`) | "
                       f"{one('replayToDecode'):.2f}x ({one('replaySeconds') * 1000:.1f} / "
                       f"{one('decodeSeconds') * 1000:.1f} ms) |")
        out.append(f"| quality over the download (`DownloadQuality(measuring:)`) | "
                   f"{median('downloadQualitySeconds') * 1000:.1f} ms |")
        out.append(f"| one SSIM at the file's size | {median('ssimSeconds') * 1000:.1f} ms |")
        out.append(f"| `ladder replay FILE` / `djpeg -dct int FILE`, as processes | "
                   f"{statistics.median(process_ratios):.2f}x |")
        out.append(f"| `ladder build --jobs {args.jobs}` ({count} images) | "
                   f"{statistics.median(p[0] for p in plain):.2f} s wall, "
                   f"{statistics.median(p[1] for p in plain):.2f} s CPU |")
        out.append(f"| `ladder build --jobs {args.jobs} --report DIR` | "
                   f"{statistics.median(r[0] for r in reported):.2f} s wall, "
                   f"{statistics.median(r[1] for r in reported):.2f} s CPU |")
        out.append(f"| **report, extra CPU per image** | **{extra_cpu / count:.3f} s** |")
        out.append(f"| report, extra wall x jobs per image | {extra_wall * args.jobs / count:.3f} s |")
        text = "\n".join(out) + "\n"
        print(text)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
