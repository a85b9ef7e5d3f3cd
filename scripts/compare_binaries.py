#!/usr/bin/env python3
"""Builds the same inputs with two ladder executables and compares what they write, byte for
byte; or times their no-op rebuilds of one generated set, alternately (wall time and the CPU
time of the whole process tree, which a busy machine disturbs far less).

    scripts/compare_binaries.py OLD NEW identical [SET,SET...]   # sets under ../shared/corpus;
                                                                 # default: photos and 300 generated
    scripts/compare_binaries.py OLD NEW noop COUNT ROUNDS

Used to check that a refactoring of the build changes no byte of its output and is not slower.
"""
import os, resource, shutil, statistics, subprocess, sys, tempfile, time

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus")


def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(binary, folder):
    """Runs `binary build` in `folder`; returns wall seconds, CPU seconds and the exit code."""
    started, cpu_before = time.monotonic(), cpu()
    result = subprocess.run([binary, "build", "--quiet", "--jobs", "2"], cwd=folder, capture_output=True)
    return time.monotonic() - started, cpu() - cpu_before, result.returncode


def tree(folder):
    files = {}
    for base, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder)] = f.read()
    return files


def make_set(folder, photos, count):
    """A project in `folder`: a copy of `photos`, or `count` distinct tiny generated JPEGs."""
    if photos:
        shutil.copytree(photos, os.path.join(folder, "photos"))
    else:
        import pyvips
        for index in range(count):
            # Six flat 8x8 blocks whose grey levels spell the index in base 16.
            pixels = bytearray(24 * 16 * 3)
            for block in range(6):
                level = 8 + 16 * (index >> (4 * block) & 15)
                bx, by = block % 3 * 8, block // 3 * 8
                for y in range(by, by + 8):
                    start = (y * 24 + bx) * 3
                    pixels[start:start + 24] = bytes([level]) * 24
            sub = os.path.join(folder, "photos", f"{index // 100:03d}")
            os.makedirs(sub, exist_ok=True)
            image = pyvips.Image.new_from_memory(bytes(pixels), 24, 16, 3, "uchar")
            image.jpegsave(os.path.join(sub, f"{index:05d}.jpg"), Q=90)
    with open(os.path.join(folder, "pipeline.json"), "w") as f:
        f.write('{"sources": ["photos"]}')


def main():
    old, new, mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    work = tempfile.mkdtemp(prefix="ladder-compare-")
    try:
        if mode == "identical":
            names = sys.argv[4].split(",") if len(sys.argv) > 4 else ["photos", "generated"]
            for name in names:
                photos = None if name == "generated" else os.path.join(CORPUS, name)
                if photos and not os.path.isdir(photos):
                    print(f"{name}: {photos} is absent; skipped")
                    continue
                outputs = {}
                for label, binary in [("old", old), ("new", new)]:
                    folder = os.path.join(work, f"{name}-{label}")
                    make_set(folder, photos, 300)
                    seconds, _, code = build(binary, folder)
                    print(f"{name} {label}: first build {seconds:.1f} s, exit {code}")
                    outputs[label] = tree(os.path.join(folder, "build"))
                same = outputs["old"] == outputs["new"]
                print(f"{name}: {len(outputs['old'])} files; byte-identical: {same}")
                for path in sorted(set(outputs["old"]) | set(outputs["new"])):
                    if outputs["old"].get(path) != outputs["new"].get(path):
                        print(f"  differs: {path}")
        elif mode == "noop":
            count, rounds = int(sys.argv[4]), int(sys.argv[5])
            folder = os.path.join(work, "noop")
            make_set(folder, None, count)
            build(new, folder)
            time.sleep(2.5)  # past the stat cache's two-second window
            build(old, folder)
            build(new, folder)
            walls, cpus = {"old": [], "new": []}, {"old": [], "new": []}
            for index in range(rounds):
                order = [("old", old), ("new", new)] if index % 2 == 0 else [("new", new), ("old", old)]
                for label, binary in order:
                    seconds, cpu_seconds, code = build(binary, folder)
                    assert code == 0, f"{label} exited {code}"
                    walls[label].append(seconds)
                    cpus[label].append(cpu_seconds)
            for label in ["old", "new"]:
                print(f"no-op rebuild of {count} sources, {label}: wall median {statistics.median(walls[label]):.3f} s"
                      f" (min {min(walls[label]):.3f}), CPU median {statistics.median(cpus[label]):.3f} s"
                      f" (min {min(cpus[label]):.3f}), {rounds} runs")
        else:
            sys.exit(__doc__)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
