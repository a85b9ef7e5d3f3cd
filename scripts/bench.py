#!/usr/bin/env python3
"""ladder's benchmark: ladder against vipsthumbnail and ImageMagick on the same job, against the
floor of the work itself, and a no-op rebuild of many sources. Run through scripts/bench, which
installs what this needs.

The job, for every image: small_thumb (160x160 box, Q80), large_thumb (640x640, Q82), and a
full-size progressive JPEG (2560x2560, Q85), never upscaled, metadata stripped.

- vipsthumbnail runs once per variant (it decodes the source each time), as users script it:
  three runs per image, spread over the cores with xargs -P, libvips threads set to 1.
- convert runs once per image with -define jpeg:size= for the largest box (so libjpeg may shrink
  on load) and writes the three variants from one decode, spread over the cores the same way.
- The floor is the work no tool can avoid, timed by ladder itself (`ladder __floor`), one thread:
  for every image, one decode at the scale its largest variant needs (libvips' thumbnail of the
  largest box: shrink-on-load plus the resize to that box), plus encoding each variant from pixels
  already at its size with ladder's encoder (the 5-scan script for the full-size one). Its wall
  time on N cores is the makespan of those per-image costs scheduled largest first on N cores:
  no start-up, no reading, no hashing, no resizing between variants, no waiting.

Tools alternate their order every round; medians are reported. Peak memory is the largest total
resident memory of the tool's whole process tree, sampled every 20 ms.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

VARIANTS = [("small_thumb", 160, 80, False), ("large_thumb", 640, 82, False), ("full", 2560, 85, True)]


def children_of(pid):
    """Direct children of a process, from /proc/PID/task/*/children."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
    except OSError:
        pass
    return found


def tree_rss_kb(root):
    """Resident memory of a process and all its descendants, in KiB."""
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children_of(pid))
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def measured(command, cwd, env=None):
    """Runs `command`, returning (seconds, peak resident KiB of its process tree)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kb(process.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, errors = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"bench: {command[0]} failed ({process.returncode}): {errors.decode(errors='replace')[-2000:]}")
    return seconds, peak


class Tools:
    def __init__(self, ladder, images, jobs, work):
        self.ladder, self.images, self.jobs, self.work = ladder, images, jobs, work
        self.files = sorted(os.path.join(images, name) for name in os.listdir(images)
                            if name.lower().endswith((".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff")))
        single_thread = dict(os.environ, VIPS_CONCURRENCY="1", MAGICK_THREAD_LIMIT="1", OMP_NUM_THREADS="1")
        self.env = single_thread
        with open(os.path.join(work, "files.txt"), "w") as f:
            f.write("\n".join(self.files) + "\n")
        with open(os.path.join(work, "vipsthumbnail.sh"), "w") as f:
            f.write('set -e\nname=$(basename "$1")\nfor spec in ')
            f.write(" ".join(f"{n}:{b}:{q}:{int(p)}" for n, b, q, p in VARIANTS))
            f.write('; do\n  IFS=: read n b q p <<< "$spec"\n  opts="Q=$q,strip,optimize_coding"\n'
                    '  [ "$p" = 1 ] && opts="$opts,interlace"\n'
                    '  vipsthumbnail "$1" -s "${b}x${b}>" -o "$OUT/${name}_$n.jpg[$opts]"\ndone\n')
        with open(os.path.join(work, "convert.sh"), "w") as f:
            big = max(b for _, b, _, _ in VARIANTS)
            chain = []
            for n, b, q, p in sorted(VARIANTS, key=lambda v: -v[1])[:-1]:
                interlace = "JPEG" if p else "None"
                chain.append(f'\\( +clone -resize "{b}x{b}>" -quality {q} -interlace {interlace} '
                             f'-write "$OUT/${{name}}_{n}.jpg" +delete \\)')
            n, b, q, p = sorted(VARIANTS, key=lambda v: -v[1])[-1]
            f.write('set -e\nname=$(basename "$1")\n')
            f.write(f'convert -define jpeg:size={big}x{big} "$1" -auto-orient -strip {" ".join(chain)} '
                    f'-resize "{b}x{b}>" -quality {q} -interlace None "$OUT/${{name}}_{n}.jpg"\n')

    def run_ladder(self):
        folder = os.path.join(self.work, "ladder")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        variants = ", ".join(
            f'"{n}": {{"maxWidth": {b}, "maxHeight": {b}, "quality": {q}'
            + (', "progressive": {"scans": 5}' if p else "") + "}" for n, b, q, p in VARIANTS)
        with open(os.path.join(folder, "pipeline.json"), "w") as f:
            f.write(f'{{"sources": ["{self.images}"], "variants": {{{variants}}}}}')
        return measured([self.ladder, "build", "--jobs", str(self.jobs), "--quiet"], folder, self.env)

    def run_script(self, name):
        out = os.path.join(self.work, name + "-out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        env = dict(self.env, OUT=out)
        command = ["sh", "-c", f'xargs -d "\\n" -P {self.jobs} -n 1 bash {self.work}/{name}.sh < {self.work}/files.txt']
        result = measured(command, self.work, env)
        produced = len(os.listdir(out))
        if produced != len(self.files) * len(VARIANTS):
            sys.exit(f"bench: {name} wrote {produced} files, expected {len(self.files) * len(VARIANTS)}")
        return result

    def run_floor(self):
        """The floor on `jobs` cores: every image's unavoidable work, timed by ladder itself
        (`ladder __floor`: one decode at the scale the largest variant needs, then each variant's
        encode, with its own decoder and encoder, one thread), scheduled largest first on `jobs`
        cores; the finishing time of the busiest core is the floor's wall time."""
        output = subprocess.run([self.ladder, "__floor", *self.files], capture_output=True, text=True, env=self.env)
        if output.returncode != 0:
            sys.exit(f"bench: ladder __floor failed: {output.stderr[-2000:]}")
        costs = sorted((json.loads(line)["seconds"] for line in output.stdout.splitlines()), reverse=True)
        cores = [0.0] * self.jobs
        for cost in costs:
            cores[cores.index(min(cores))] += cost
        return max(cores), 0


def noop_rebuild(ladder, count, work, jobs):
    """Builds `count` tiny sources, then times rebuilds with nothing changed."""
    import pyvips
    folder = os.path.join(work, "noop")
    sources = os.path.join(folder, "sources")
    os.makedirs(sources, exist_ok=True)
    for index in range(count):
        sub = os.path.join(sources, f"{index // 100:03d}")
        os.makedirs(sub, exist_ok=True)
        # Six flat 8x8 blocks whose grey levels spell the index in base 16, 16 levels apart so
        # that JPEG quantization keeps every source distinct.
        pixels = bytearray(24 * 16 * 3)
        for block in range(6):
            level = 8 + 16 * (index >> (4 * block) & 15)
            bx, by = block % 3 * 8, block // 3 * 8
            for y in range(by, by + 8):
                start = (y * 24 + bx) * 3
                pixels[start:start + 24] = bytes([level]) * 24
        image = pyvips.Image.new_from_memory(bytes(pixels), 24, 16, 3, "uchar")
        image.jpegsave(os.path.join(sub, f"{index:05d}.jpg"), Q=90)

    with open(os.path.join(folder, "pipeline.json"), "w") as f:
        f.write('{"sources": ["sources"]}')
    first, _ = measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)
    # Let the files age past the stat cache's two-second window, as they would between commits.
    time.sleep(2.5)
    measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)  # records the aged identities
    times = [measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)[0] for _ in range(5)]
    return first, statistics.median(times), min(times), max(times)


def synthetic_jpegs(folder, count, width, height):
    """Writes `count` distinct smooth photos-sized JPEGs (gradients whose slope and offset
    depend on the index) and returns the folder."""
    import pyvips
    os.makedirs(folder, exist_ok=True)
    xy = pyvips.Image.xyz(width, height)
    x, y = xy[0], xy[1]
    for index in range(count):
        red = (x * ((index % 7) + 1) / 16 + y / 8 + index) % 256
        green = (y * ((index // 7 % 5) + 1) / 16 + x / 32 + 3 * index) % 256
        blue = ((x + y) / 24 + index // 256 * 40) % 256
        image = red.bandjoin([green, blue]).cast("uchar").copy(interpretation="srgb")
        image.jpegsave(os.path.join(folder, f"s{index:05d}.jpg"), Q=88)
    return folder


def peak_of_build(ladder, sources, work, jobs):
    """Peak resident memory (KiB) of a fresh `ladder build` of `sources`."""
    folder = os.path.join(work, "memory-project")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, "pipeline.json"), "w") as f:
        f.write(json.dumps({"sources": [sources]}))
    return measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)[1]


def memory_bound(ladder, work, jobs, small, large):
    """Peak memory for a small and a ten times larger batch of 4-megapixel sources, and for one
    and for `jobs` 100-megapixel sources built with `jobs` jobs."""
    rows = []
    for count in (small, large):
        sources = synthetic_jpegs(os.path.join(work, f"batch-{count}"), count, 2400, 1600)
        rows.append((f"{count} sources of 4 MP", peak_of_build(ladder, sources, work, jobs)))
        shutil.rmtree(sources, ignore_errors=True)
    for count in (1, jobs):
        sources = synthetic_jpegs(os.path.join(work, f"huge-{count}"), count, 10000, 10000)
        rows.append((f"{count} source{'s' if count > 1 else ''} of 100 MP", peak_of_build(ladder, sources, work, jobs)))
        shutil.rmtree(sources, ignore_errors=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?")
    parser.add_argument("--ladder", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--noop-files", type=int, default=10000, help="0 to skip the no-op rebuild")
    parser.add_argument("--memory-batch", type=int, default=40,
                        help="the smaller batch of the memory check (the larger is ten times it); 0 to skip it")
    parser.add_argument("--markdown", help="also write the results as Markdown to this file")
    arguments = parser.parse_args()

    folder = arguments.folder
    if folder is None:
        folder = "../shared/corpus/photos" if os.path.isdir("../shared/corpus/photos") else "examples/photos"
    images = os.path.abspath(folder)
    work = tempfile.mkdtemp(prefix="ladder-bench-")
    try:
        tools = Tools(arguments.ladder, images, arguments.jobs, work)
        count = len(tools.files)
        runners = {"ladder": tools.run_ladder, "vipsthumbnail": lambda: tools.run_script("vipsthumbnail"),
                   "convert": lambda: tools.run_script("convert"), "floor": tools.run_floor}
        names = list(runners)
        results = {name: [] for name in names}
        print(f"bench: {count} images from {folder}, {arguments.jobs} jobs, {arguments.rounds} rounds", file=sys.stderr)
        for round_index in range(arguments.rounds):
            order = names[round_index % len(names):] + names[:round_index % len(names)]
            for name in order:
                results[name].append(runners[name]())
                print(f"  round {round_index + 1} {name}: {results[name][-1][0]:.2f} s", file=sys.stderr)
        medians = {n: (statistics.median(s for s, _ in r), statistics.median(m for _, m in r)) for n, r in results.items()}
        lines = [
            f"{count} images ({folder}), {arguments.jobs} jobs, median of {arguments.rounds} rounds",
            "",
            "| tool | seconds | images/s | ladder is faster by | peak memory |",
            "|---|---|---|---|---|",
        ]
        ladder_seconds = medians["ladder"][0]
        for name in ["ladder", "vipsthumbnail", "convert"]:
            seconds, peak = medians[name]
            ratio = "—" if name == "ladder" else f"{seconds / ladder_seconds:.2f}x"
            lines.append(f"| {name} | {seconds:.2f} | {count / seconds:.1f} | {ratio} | {peak / 1024:.0f} MiB |")
        floor_seconds = medians["floor"][0]
        lines.append(f"| floor (decode at scale + encodes) | {floor_seconds:.2f} | {count / floor_seconds:.1f} | "
                     f"ladder takes {ladder_seconds / floor_seconds:.2f}x the floor | — |")
        if arguments.noop_files > 0:
            first, median, fastest, slowest = noop_rebuild(arguments.ladder, arguments.noop_files, work, arguments.jobs)
            lines += ["", f"No-op rebuild of {arguments.noop_files} unchanged sources: median {median:.3f} s "
                          f"(min {fastest:.3f}, max {slowest:.3f}, 5 runs); the first build took {first:.1f} s."]
        if arguments.memory_batch > 0:
            print("bench: memory check", file=sys.stderr)
            rows = memory_bound(arguments.ladder, work, arguments.jobs, arguments.memory_batch,
                                arguments.memory_batch * 10)
            lines += ["", f"Peak memory of ladder build (whole process tree, {arguments.jobs} jobs):", "",
                      "| sources | peak memory |", "|---|---|"]
            lines += [f"| {label} | {peak / 1024:.0f} MiB |" for label, peak in rows]
        cpu = "unknown CPU"

        try:
            with open("/proc/cpuinfo") as f:
                cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
        except (OSError, StopIteration):
            pass
        versions = subprocess.run([arguments.ladder, "--version"], capture_output=True, text=True).stdout.split("\n")
        lines += ["", f"Machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
                      + ", ".join(v for v in versions if v) + "."]
        text = "\n".join(lines)
        print(text)
        if arguments.markdown:
            with open(arguments.markdown, "w") as f:
                f.write(text + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
