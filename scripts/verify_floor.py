#!/usr/bin/env python3
"""The floor of `ladder verify --no-cache` against verify itself; see scripts/verify-floor."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def listed(tree, folders, keep):
    """The regular files under `folders` (relative to `tree`) for which keep(relative path) holds,
    found with find(1), sorted."""
    found = subprocess.run(["find"] + folders + ["-type", "f"], cwd=tree, capture_output=True, text=True, check=True)
    return sorted(path for path in found.stdout.splitlines() if keep(path))


def timed(command, cwd):
    """(wall seconds, CPU seconds) of `command` under /usr/bin/time; fails on a non-zero exit."""
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S"] + command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"verify-floor: {' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    wall, user, system = map(float, result.stderr.strip().splitlines()[-1].split())
    return wall, user + system, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ladder")
    parser.add_argument("--default-ladder", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    ladder = os.path.abspath(args.ladder or args.default_ladder)
    with open(os.path.join(tree, "pipeline.json")) as file:
        pipeline = json.load(file)
    output = os.path.normpath(pipeline["output"])
    manifest = os.path.normpath(pipeline["manifest"])
    index = os.path.join(os.path.dirname(manifest), "index")
    variants = listed(tree, [output], lambda path: path.endswith(".jpg") and not path.startswith(index + "/"))
    lists = {
        "sha1": listed(tree, pipeline["sources"], lambda path: True),
        "sha256": variants,
        "decode": [path for path in variants if "-small_thumb-" in os.path.basename(path)],
        "parse": [manifest] + listed(tree, [index], lambda path: path.endswith(".json")),
    }
    counts = {kind: len(paths) for kind, paths in lists.items()}
    print(f"files: {counts}", flush=True)
    with tempfile.TemporaryDirectory() as work:
        options = []
        for kind, paths in lists.items():
            path = os.path.join(work, kind)
            with open(path, "w") as file:
                file.write("".join(f"{os.path.join(tree, entry)}\n" for entry in paths))
            options += [f"--{kind}", path]
        floor = [args.bench, "verify-floor", "--jobs", str(args.jobs)] + options
        verify = [ladder, "verify", "-q", "--no-cache", "-j", str(args.jobs)]
        results = {"floor": [], "verify": []}
        # One unmeasured run of each first, so that every measured one finds the files cached.
        timed(floor, tree)
        timed(verify, tree)
        for round in range(args.rounds):
            # Alternating, the first of each round in turn, so that both see the same load.
            order = ["floor", "verify"] if round % 2 == 0 else ["verify", "floor"]
            for name in order:
                wall, cpu, printed = timed(floor if name == "floor" else verify, tree)
                if name == "floor":
                    # The floor's work alone, without its start and the reading of its lists.
                    line = json.loads(printed)
                    wall, cpu = line["seconds"], line["cpuSeconds"]
                results[name].append((wall, cpu))
                print(f"round {round + 1}: {name} {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
    median = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)) for name, runs in results.items()}
    for name, (wall, cpu) in median.items():
        print(f"{name}: median {wall:.2f} s, CPU {cpu:.2f} s")
    print(f"verify takes {median['verify'][0] / median['floor'][0]:.2f}x the floor's wall time, "
          f"{median['verify'][1] / median['floor'][1]:.2f}x its CPU time")


if __name__ == "__main__":
    main()
