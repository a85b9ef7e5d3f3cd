#!/usr/bin/env python3
"""ladder's benchmark: time, memory and quality of ladder against its peers doing the same job,
against the floor of the work itself, and a no-op rebuild of many sources. Run through
scripts/bench, which installs what this needs.

The job, for every image: small_thumb (160x160 box, Q80), large_thumb (640x640, Q82), and a
full-size progressive JPEG (2560x2560, Q85), never upscaled, metadata stripped, transparency
flattened onto white (ladder's default background; libvips' JPEG saver would flatten onto black
unless told `background=255`, ImageMagick would drop the alpha and show the hidden colours).

Peers, each on all cores (one process per core, libvips and ImageMagick threads set to 1):
- vipsthumbnail, once per variant (it decodes the source each time), as users script it:
  three runs per image, spread over the cores with xargs -P.
- the decode-once libvips chain, as a careful user scripts it with pyvips: one decode to the
  full-size box (vips_thumbnail, shrink-on-load), then both thumbnails resized from that picture
  (vips_resize, Lanczos3), one process per core.
- the same chain with the vips command line: vipsthumbnail writes the full-size variant, then
  makes both thumbnails from that file; spread over the cores with xargs -P.
- ImageMagick's convert, once per image with -define jpeg:size= for the largest box (libjpeg
  may shrink on load), writing the three variants from one decode.
- The floor: the work no tool can avoid at ladder's quality, timed with ladder's own code
  (`ladder-bench floor`, from Benchmarks/, one thread): for every image one decode to the exact size of its largest variant
  (shrink-on-load and Lanczos3), the smaller variants resized with Lanczos3 from that picture,
  and the encode of each variant (the progressive one with the fixed
  script). Its wall time on N cores is the makespan of those per-image costs scheduled largest
  first: no start-up, no reading, no hashing, no scan-script choice, no waiting.

Timing: every round runs every tool once, in an order rotated each round; a tool's ratio to
ladder is taken within each round (paired) and the median over rounds is reported, beside the
median times. Memory: the peak over the run of the sum of PSS (/proc/PID/smaps_rollup) of the
tool's whole process tree, sampled every 25 ms (RSS summed the same way beside it).

Quality: every output of the last round is checked (present, decodable, of the planned size)
and compared on luma (Rec. 601) with a reference made from the full decode of the source
(upright, embedded ICC profile converted to sRGB, no shrink-on-load), resized with libvips'
Lanczos3 alone (vips_reduce, no box shrink) to the output's exact size: median SSIM (Gaussian
window, sigma 1.5, the formula of scikit-image's structural_similarity), median PSNR, the worst image's PSNR against
vipsthumbnail's for the same image, and median bytes; with --per-image, every image's PSNR and
SSIM, ladder's beside vipsthumbnail's. With --hard, the hard set of scripts/hardset.py.
"""
import argparse
import json
import multiprocessing
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
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".gif")

# Camera photos of ../shared/corpus beyond its photos folder, for the mixed set (the renders are
# generated): phones and cameras, rotated ones, ICC-tagged ones, a panorama, a 17-megapixel one.
MIXED_CAMERA_PHOTOS = [
    "exif/Leica_T_orient8_void_gps.jpg", "exif/Oppo_R7_Plus.jpg", "formats/very-large_progressive.jpg",
    "exif/Nokia_Lumia_800.jpg", "exif/Canon_EOS_1000D_orient6.jpg", "formats/xmp_test_adobergb.jpg",
    "formats/ultra-hdr_gainmap.jpg", "formats/examplepano_progressive_2to1.jpg", "exif/Apple_iPhone_5_orient3.jpg",
    "exif/Apple_iPhone_6.jpg", "exif/Nexus_4.jpg", "exif/Nikon_D40_orient6_xmp.jpg", "exif/Nikon_E995_iptc.jpg",
    "exif/Olympus_FE230-X790.jpg", "exif/Panasonic_DMC-LX7_mpf.jpg",
]


# MARK: - Process trees and their memory

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


def tree_memory_kb(root):
    """(PSS, RSS) of a process and all its descendants, in KiB, from smaps_rollup."""
    pss = rss = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        stack.extend(children_of(pid))
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                    elif line.startswith("Rss:"):
                        rss += int(line.split()[1])
        except OSError:
            pass
    return pss, rss


def measured(command, cwd, env=None):
    """Runs `command`; returns (seconds, peak PSS KiB, peak RSS KiB) of its process tree."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak_pss = peak_rss = 0
    done = threading.Event()

    def sample():
        nonlocal peak_pss, peak_rss
        while not done.is_set():
            pss, rss = tree_memory_kb(process.pid)
            peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
            done.wait(0.025)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, errors = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"bench: {command[0]} failed ({process.returncode}): {errors.decode(errors='replace')[-2000:]}")
    return seconds, peak_pss, peak_rss


# MARK: - The image sets

def generate_renders(folder):
    """Large renders, made in code: flat art, a wallpaper, a text poster, a zone plate, a fractal
    landscape, interference patterns. They have what camera photos lack: hard edges, flat
    areas and detail up to the pixel pitch."""
    import pyvips
    os.makedirs(folder, exist_ok=True)

    def save(name, image):
        image.cast("uchar").copy(interpretation="srgb").jpegsave(os.path.join(folder, name), Q=92)

    xy = pyvips.Image.xyz(3840, 2160)
    x, y = xy[0], xy[1]
    distance = ((x - 1300) ** 2 + (y - 900) ** 2) ** 0.5
    disc = (distance < 700).ifthenelse([230, 80, 40], [30, 60, 120])
    stripes = ((x + y) % 90 < 30).ifthenelse([250, 220, 60], disc)
    save("render_flat_3840.jpg", (distance < 700).ifthenelse(disc, stripes).gaussblur(0.6))

    clouds = pyvips.Image.perlin(5120, 2880, cell_size=256, seed=3)
    cells = pyvips.Image.worley(5120, 2880, cell_size=180, seed=5)
    cells = cells / cells.max()
    save("render_wallpaper_5120.jpg", (clouds * 90 + 128).bandjoin([cells * 200 + 30, clouds * 60 + cells * 90 + 60]))

    text = pyvips.Image.text("ladder " * 12 + "\n" + "Thumbnails as sharp as the reference " * 3 + "\n"
                             + "0123456789 " * 10, width=3800, dpi=600)
    ink = 245 - text.embed(100, 200, 4000, 3000) * (200 / 255)
    ruled = ((pyvips.Image.xyz(4000, 3000)[0] % 23) < 2).ifthenelse(60, ink)
    save("render_text_4000.jpg", ruled.bandjoin([ink, ink]))

    zone = pyvips.Image.zone(4096, 4096) * 120 + 128
    save("render_zone_4096.jpg", zone.bandjoin([zone, zone]))

    surface = pyvips.Image.fractsurf(6000, 4000, 2.3)
    surface = (surface - surface.min()) / (surface.max() - surface.min()) * 255
    save("render_fractal_6000.jpg", surface.bandjoin([255 - surface, surface * 0.5 + 60]))

    sines = pyvips.Image.sines(3000, 2000, hfreq=0.9, vfreq=0.7) * 110 + 128
    eye = pyvips.Image.eye(3000, 2000, factor=0.6) * 110 + 128
    save("render_sines_3000.jpg", sines.bandjoin([eye, (sines + eye) / 2]))


def mixed_set(work, corpus, photos):
    """A folder of `photos` camera photos (copied from the corpus, when present) and generated
    renders."""
    folder = os.path.join(work, "mixed")
    os.makedirs(folder, exist_ok=True)
    if os.path.isdir(corpus):
        for relative in MIXED_CAMERA_PHOTOS[:photos]:
            path = os.path.join(corpus, relative)
            if os.path.isfile(path):
                shutil.copyfile(path, os.path.join(folder, os.path.basename(path)))
    generate_renders(folder)
    return folder


def fitted(width, height, box):
    """The size of a variant: inside box x box, aspect kept, never upscaled."""
    if width <= box and height <= box:
        return width, height
    if width >= height:
        return box, max(1, round(height * box / width))
    return max(1, round(width * box / height)), box


# MARK: - The tools

class Tools:
    def __init__(self, ladder, bench, images, jobs, work):
        self.ladder, self.bench, self.images, self.jobs, self.work = ladder, bench, images, jobs, work
        os.makedirs(work, exist_ok=True)
        self.files = sorted(os.path.join(images, name) for name in os.listdir(images)
                            if name.lower().endswith(IMAGE_SUFFIXES))
        self.env = dict(os.environ, VIPS_CONCURRENCY="1", MAGICK_THREAD_LIMIT="1", OMP_NUM_THREADS="1")
        self.outputs = {}
        self.magick = next(tool for tool in ("magick", "convert-im6.q16", "convert") if shutil.which(tool))
        with open(os.path.join(work, "files.txt"), "w") as f:
            f.write("\n".join(self.files) + "\n")
        import pyvips
        big = max(b for _, b, _, _ in VARIANTS)
        with open(os.path.join(work, "files-and-sizes.txt"), "w") as f:
            for path in self.files:
                header = pyvips.Image.new_from_file(path)
                f.write(f"{path}\n{min(big, header.width)}x{min(big, header.height)}\n")
        with open(os.path.join(work, "vipsthumbnail.sh"), "w") as f:
            # vipsthumbnail converts an embedded profile to sRGB only when asked (--export-profile).
            f.write('set -e\nname=$(basename "$1")\nprofile=\n'
                    'if vipsheader -f icc-profile-data "$1" >/dev/null 2>&1; then profile="--export-profile srgb"; fi\n'
                    'for spec in ')
            f.write(" ".join(f"{n}:{b}:{q}:{int(p)}" for n, b, q, p in VARIANTS))
            f.write('; do\n  IFS=: read n b q p <<< "$spec"\n  opts="Q=$q,strip,optimize_coding,background=255"\n'
                    '  [ "$p" = 1 ] && opts="$opts,interlace"\n'
                    '  vipsthumbnail "$1" $profile -s "${b}x${b}>" -o "$OUT/${name}_$n.jpg[$opts]"\ndone\n')
        with open(os.path.join(work, "vips-cli-chain.sh"), "w") as f:
            # The same chain with the vips command line: the full-size variant first, then both
            # thumbnails from that file (a second, shrink-on-load decode of a small JPEG).
            n, b, q, _ = max(VARIANTS, key=lambda v: v[1])
            f.write('set -e\nname=$(basename "$1")\nprofile=\n'
                    'if vipsheader -f icc-profile-data "$1" >/dev/null 2>&1; then profile="--export-profile srgb"; fi\n'
                    f'full="$OUT/${{name}}_{n}.jpg"\n'
                    f'vipsthumbnail "$1" $profile -s "{b}x{b}>" -o "$full[Q={q},strip,optimize_coding,interlace,background=255]"\n')
            for n, b, q, _ in sorted(VARIANTS, key=lambda v: -v[1])[1:]:
                f.write(f'vipsthumbnail "$full" -s "{b}x{b}>" -o "$OUT/${{name}}_{n}.jpg[Q={q},strip,optimize_coding]"\n')
        with open(os.path.join(work, "convert.sh"), "w") as f:
            big = max(b for _, b, _, _ in VARIANTS)
            chain = []
            for n, b, q, p in sorted(VARIANTS, key=lambda v: -v[1])[:-1]:
                interlace = "JPEG" if p else "None"
                chain.append(f'\\( +clone -resize "{b}x{b}>" -quality {q} -interlace {interlace} '
                             f'-write "$OUT/${{name}}_{n}.jpg" +delete \\)')
            n, b, q, p = sorted(VARIANTS, key=lambda v: -v[1])[-1]
            # jpeg:size is a hint for libjpeg's scaling on load, which also scales up (to 16/8):
            # it is capped at the image's own size, so that nothing is decoded larger ($2).
            f.write('set -e\nname=$(basename "$1")\n')
            f.write(f'{self.magick} -define jpeg:size="$2" "$1" -auto-orient -strip -background white -alpha remove -alpha off '
                    f'{" ".join(chain)} -resize "{b}x{b}>" -quality {q} -interlace None "$OUT/${{name}}_{n}.jpg"\n')

    def run_ladder(self):
        folder = os.path.join(self.work, "ladder")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        variants = ", ".join(
            f'"{n}": {{"maxWidth": {b}, "maxHeight": {b}, "quality": {q}'
            + (', "progressive": {"scans": 5}' if p else "") + "}" for n, b, q, p in VARIANTS)
        with open(os.path.join(folder, "pipeline.json"), "w") as f:
            f.write(f'{{"sources": ["{self.images}"], "output": "out", "variants": {{{variants}}}}}')
        result = measured([self.ladder, "build", "--jobs", str(self.jobs), "--quiet"], folder, self.env)
        with open(os.path.join(folder, "out", "manifest.json")) as f:
            manifest = json.load(f)
        outputs = {}
        for entry in manifest["images"].values():
            for source in entry["sources"]:
                for name, variant in entry["variants"].items():
                    outputs[(os.path.basename(source), name)] = os.path.join(folder, "out", variant["path"])
        self.outputs["ladder"] = outputs
        return result

    def run_script(self, name):
        out = os.path.join(self.work, name + "-out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        env = dict(self.env, OUT=out)
        arguments, listing = (2, "files-and-sizes.txt") if name == "convert" else (1, "files.txt")
        command = ["sh", "-c", f'xargs -d "\\n" -P {self.jobs} -n {arguments} bash {self.work}/{name}.sh '
                               f'< {self.work}/{listing}']
        result = measured(command, self.work, env)
        self.outputs[{"vips-cli-chain": "vips CLI chain"}.get(name, name)] = {
            (os.path.basename(f), n): os.path.join(out, f"{os.path.basename(f)}_{n}.jpg")
                              for f in self.files for n, _, _, _ in VARIANTS}
        return result

    def run_chain(self):
        out = os.path.join(self.work, "chain-out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        command = [sys.executable, os.path.abspath(__file__), "--chain", out, "--jobs", str(self.jobs),
                   os.path.join(self.work, "files.txt")]
        result = measured(command, self.work, self.env)
        self.outputs["libvips chain"] = {(os.path.basename(f), n): os.path.join(out, f"{os.path.basename(f)}_{n}.jpg")
                                         for f in self.files for n, _, _, _ in VARIANTS}
        return result

    def run_floor(self):
        """The floor on `jobs` cores: every image's unavoidable work, timed by ladder itself,
        scheduled largest first on `jobs` cores; the busiest core's finishing time."""
        output = subprocess.run([self.bench, "floor", *self.files], capture_output=True, text=True, env=self.env)
        if output.returncode != 0:
            sys.exit(f"bench: ladder-bench floor failed: {output.stderr[-2000:]}")
        costs = sorted((json.loads(line)["seconds"] for line in output.stdout.splitlines()), reverse=True)
        cores = [0.0] * self.jobs
        for cost in costs:
            cores[cores.index(min(cores))] += cost
        return max(cores), 0, 0


# MARK: - The decode-once libvips chain (run as its own program by run_chain)

def chain_one(job):
    """One image: decode once to the full-size box, then both thumbnails from that picture."""
    import pyvips
    path, out = job
    name = os.path.basename(path)
    source = pyvips.Image.new_from_file(path)
    options = {"export_profile": "srgb"} if source.get_typeof("icc-profile-data") else {}
    full = pyvips.Image.thumbnail(path, 2560, height=2560, size="down", **options)
    full = full.colourspace("b-w" if full.bands < 3 else "srgb").copy_memory()
    for n, box, quality, progressive in VARIANTS:
        width, height = fitted(full.width, full.height, box)
        picture = full if (width, height) == (full.width, full.height) else \
            full.resize(width / full.width, vscale=height / full.height, kernel="lanczos3")
        picture.jpegsave(os.path.join(out, f"{name}_{n}.jpg"), Q=quality, strip=True, optimize_coding=True,
                         interlace=progressive, background=255)


def run_chain_program(out, jobs, listing):
    import pyvips
    pyvips.cache_set_max(0)
    with open(listing) as f:
        files = [line for line in f.read().splitlines() if line]
    with multiprocessing.Pool(jobs) as pool:
        for _ in pool.imap_unordered(chain_one, [(path, out) for path in files]):
            pass


# MARK: - Quality

def upright_srgb(path):
    """The reference's starting point: the full decode, upright, in sRGB (an embedded profile
    converted), alpha flattened on white, 8 bits."""
    import pyvips
    image = pyvips.Image.new_from_file(path).autorot()
    if image.get_typeof("icc-profile-data") and image.interpretation not in ("b-w", "grey16"):
        image = image.icc_transform("srgb", embedded=True)
    if image.hasalpha():
        image = image.flatten(background=255)
    image = image.colourspace("srgb") if image.interpretation not in ("srgb", "b-w") else image
    return image.cast("uchar").copy_memory()


def luma(image):
    """The Rec. 601 luma plane of an 8-bit image, as a one-band float libvips image."""
    if image.bands >= 3:
        return image[0] * 0.299 + image[1] * 0.587 + image[2] * 0.114
    return image[0].cast("float")


def ssim(picture, reference):
    """SSIM (Wang et al. 2004) of two luma planes: Gaussian window (sigma 1.5, truncated at 3.5
    sigma, 11 taps), population covariance, averaged over the pixels at least 5 from the border:
    the formula of scikit-image's structural_similarity(gaussian_weights=True, sigma=1.5,
    use_sample_covariance=False), computed with libvips' separable convolution to be fast.
    Along a side of 10 pixels or fewer no border is left out (the window then reaches past the
    edges, which libvips extends by copying them): averaged over nothing, SSIM would be
    undefined."""
    import math
    import pyvips
    taps = [math.exp(-(i * i) / (2 * 1.5 * 1.5)) for i in range(-5, 6)]
    mask = pyvips.Image.new_from_list([[t / sum(taps) for t in taps]])

    def blur(plane):
        return plane.convsep(mask, precision="float").copy_memory()

    x, y = picture.copy_memory(), reference.copy_memory()
    mean_x, mean_y = blur(x), blur(y)
    variance_x = blur(x * x) - mean_x * mean_x
    variance_y = blur(y * y) - mean_y * mean_y
    covariance = blur(x * y) - mean_x * mean_y
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    index = ((mean_x * mean_y * 2 + c1) * (covariance * 2 + c2)) / \
        ((mean_x * mean_x + mean_y * mean_y + c1) * (variance_x + variance_y + c2))
    left = 5 if index.width > 10 else 0
    top = 5 if index.height > 10 else 0
    return index.crop(left, top, index.width - 2 * left, index.height - 2 * top).avg()


def score_source(job):
    """(source, variant, tool) -> (PSNR, SSIM, bytes, size) for every output of one source, or a
    failure."""
    import math
    import pyvips
    path, planned, outputs = job
    full = upright_srgb(path)
    references = {}
    scores, failures = {}, []
    for (tool, variant), output in outputs.items():
        if not output or not os.path.isfile(output):
            failures.append(f"{tool} wrote no {variant} for {os.path.basename(path)}")
            continue
        try:
            made = pyvips.Image.new_from_file(output)
            made = made.colourspace("srgb") if made.bands >= 3 or made.interpretation != "b-w" else made
            made = made.cast("uchar").copy_memory()
        except pyvips.Error as error:
            failures.append(f"{tool}'s {variant} of {os.path.basename(path)} does not decode: {error}")
            continue
        size = (made.width, made.height)
        expected = planned[variant]
        if abs(size[0] - expected[0]) > 1 or abs(size[1] - expected[1]) > 1:
            failures.append(f"{tool}'s {variant} of {os.path.basename(path)} is {size}, not {expected}")
            continue
        if size not in references:
            reference = full if size == (full.width, full.height) else \
                full.reduce(full.width / size[0], full.height / size[1], kernel="lanczos3")
            references[size] = luma(reference.cast("uchar")).copy_memory()
        reference, picture = references[size], luma(made).copy_memory()
        mean_square = ((reference - picture) ** 2).avg()
        psnr = 99.0 if mean_square == 0 else 10 * math.log10(255 * 255 / mean_square)
        scores[(tool, variant)] = (psnr, ssim(picture, reference), os.path.getsize(output), size)
    return os.path.basename(path), scores, failures


def quality(tools, names, jobs):
    """Scores the last round's outputs of every tool; exits when an output is missing or wrong."""
    import pyvips
    work = []
    for path in tools.files:
        header = pyvips.Image.new_from_file(path).autorot()
        planned = {n: fitted(header.width, header.height, b) for n, b, _, _ in VARIANTS}
        outputs = {(tool, n): tools.outputs[tool].get((os.path.basename(path), n))
                   for tool in names for n, _, _, _ in VARIANTS}
        work.append((path, planned, outputs))
    # Fresh processes (spawn): libvips' threads, started in this one by the generated sets, do
    # not survive a fork, and a forked worker can wait forever on a lock one of them held.
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = pool.map(score_source, work)
    failures = [failure for _, _, found in results for failure in found]
    if failures:
        sys.exit("bench: outputs failed their check:\n  " + "\n  ".join(failures[:20]))
    return {source: scores for source, scores, _ in results}


# MARK: - No-op rebuilds and memory bounds

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
    first = measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)[0]
    # Let the files age past the stat cache's two-second window, as they would between commits.
    time.sleep(2.5)
    measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)  # records the aged identities
    times = [measured([ladder, "build", "--jobs", str(jobs), "--quiet"], folder)[0] for _ in range(5)]
    return first, statistics.median(times), min(times), max(times)


def synthetic_jpegs(folder, count, width, height):
    """Writes `count` distinct smooth photo-sized JPEGs (gradients whose slope and offset
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
    """Peak PSS (KiB) of a fresh `ladder build` of `sources`."""
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


# MARK: - One image set

PEERS = ["vipsthumbnail", "libvips chain", "vips CLI chain", "convert"]
SLOW_PEERS = ["vips CLI chain", "convert"]
TARGETS = {"vipsthumbnail": 2.0, "libvips chain": 1.5, "vips CLI chain": 1.5, "convert": 4.0}


def per_image_table(scores):
    """Every image and variant: ladder's PSNR and SSIM beside vipsthumbnail's, and the PSNR
    difference, marked where ladder is more than 0.5 dB below."""
    lines = ["| image | variant | size | ladder PSNR / SSIM | vipsthumbnail PSNR / SSIM | ladder − vipsthumbnail |",
             "|---|---|---|---|---|---|"]
    for source in sorted(scores):
        for variant, _, _, _ in VARIANTS:
            ours, theirs = scores[source][("ladder", variant)], scores[source][("vipsthumbnail", variant)]
            difference = ours[0] - theirs[0]
            lines.append(f"| {source} | {variant} | {ours[3][0]}×{ours[3][1]} | {ours[0]:.2f} / {ours[1]:.4f} "
                         f"| {theirs[0]:.2f} / {theirs[1]:.4f} | {difference:+.2f} dB"
                         f"{' **below**' if difference < -0.5 else ''} |")
    return "\n".join(lines)


def bench_set(label, folder, arguments, work):
    """Times every tool on `folder`, scores their outputs, and returns the Markdown lines."""
    tools = Tools(arguments.ladder, arguments.bench, folder, arguments.jobs, work)
    count = len(tools.files)
    runners = {"ladder": tools.run_ladder, "vipsthumbnail": lambda: tools.run_script("vipsthumbnail"),
               "libvips chain": tools.run_chain, "vips CLI chain": lambda: tools.run_script("vips-cli-chain"),
               "convert": lambda: tools.run_script("convert"),
               "floor": tools.run_floor}
    names = list(runners)
    results = {name: [] for name in names}
    print(f"bench: {label}: {count} images, {arguments.jobs} jobs, {arguments.rounds} rounds", file=sys.stderr)
    for round_index in range(arguments.rounds):
        order = names[round_index % len(names):] + names[:round_index % len(names)]
        for name in order:
            if name in SLOW_PEERS and round_index >= arguments.slow_rounds:
                continue
            results[name].append(runners[name]())
            print(f"  round {round_index + 1} {name}: {results[name][-1][0]:.2f} s", file=sys.stderr)
    # Slow peers given no round (--slow-rounds 0) are left out of every table.
    results = {n: runs for n, runs in results.items() if runs}
    peers = [n for n in PEERS if n in results]
    seconds = {n: statistics.median(r[0] for r in runs) for n, runs in results.items()}
    # The slow peers may run in the first rounds only: they pair with ladder's runs of those rounds.
    paired = {n: statistics.median(run[0] / ladder[0] for run, ladder in zip(runs, results["ladder"]))
              for n, runs in results.items() if n != "ladder"}
    # What the targets allow at best: how much faster than each peer a tool doing only the floor's
    # work would be, paired within rounds like the rest.
    floor_paired = {n: statistics.median(run[0] / floor[0] for run, floor in zip(runs, results["floor"]))
                    for n, runs in results.items() if n != "floor"}
    pss = {n: statistics.median(r[1] for r in runs) for n, runs in results.items()}
    rss = {n: statistics.median(r[2] for r in runs) for n, runs in results.items()}

    print(f"bench: {label}: scoring the outputs", file=sys.stderr)
    tools_scored = ["ladder"] + peers
    scores = quality(tools, tools_scored, arguments.jobs)

    slow_rounds = min(arguments.rounds, arguments.slow_rounds)
    lines = [f"### {label}: {count} images, {arguments.jobs} jobs, {arguments.rounds} rounds"
             + (f" ({slow_rounds} for {' and '.join(SLOW_PEERS)})" if 0 < slow_rounds < arguments.rounds else ""), "",
             "| tool | seconds (median) | images/s | ladder is faster by (median of paired rounds) | target "
             "| the floor is faster by | peak PSS | peak RSS |", "|---|---|---|---|---|---|---|---|"]
    for name in ["ladder"] + peers:
        ratio = "—" if name == "ladder" else f"{paired[name]:.2f}x"
        target = "—" if name == "ladder" else f"≥ {TARGETS[name]:.1f}x"
        lines.append(f"| {name} | {seconds[name]:.2f} | {count / seconds[name]:.1f} | {ratio} | {target} "
                     f"| {floor_paired[name]:.2f}x | {pss[name] / 1024:.0f} MiB | {rss[name] / 1024:.0f} MiB |")
    lines.append(f"| floor (decode, resizes, encodes) | {seconds['floor']:.2f} | {count / seconds['floor']:.1f} | "
                 f"ladder takes {1 / paired['floor']:.2f}x the floor | ≤ 1.15x | — | — | — |")
    lines += ["", f"Peak PSS of ladder's process tree: {pss['ladder'] / pss['vipsthumbnail']:.2f}x that of "
                  f"{arguments.jobs} concurrent vipsthumbnail processes (target ≤ 1.3x).", ""]

    lines += ["| tool | variant | SSIM (median) | PSNR dB (median) | worst image vs vipsthumbnail | bytes (median) "
              "| tool's seconds |", "|---|---|---|---|---|---|---|"]
    for name in tools_scored:
        for variant, _, _, _ in VARIANTS:
            per_image = {source: found[(name, variant)] for source, found in scores.items()}
            worst_source = min(per_image, key=lambda s: per_image[s][0] - scores[s][("vipsthumbnail", variant)][0])
            worst = per_image[worst_source][0] - scores[worst_source][("vipsthumbnail", variant)][0]
            lines.append(
                f"| {name} | {variant} | {statistics.median(s[1] for s in per_image.values()):.4f} "
                f"| {statistics.median(s[0] for s in per_image.values()):.2f} "
                f"| {'—' if name == 'vipsthumbnail' else f'{worst:+.2f} dB ({worst_source})'} "
                f"| {statistics.median(s[2] for s in per_image.values()) / 1000:.1f} kB | {seconds[name]:.2f} |")
    if arguments.per_image:
        lines += ["", per_image_table(scores)]
    print("\n".join(lines), flush=True)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*",
                        help="image folders; default: ../shared/corpus/photos (else examples/photos) and the mixed set")
    parser.add_argument("--ladder")
    parser.add_argument("--bench", help="Benchmarks/.build/release/ladder-bench, which times the floor")
    parser.add_argument("--rounds", type=int, default=3, help="0 for only the no-op rebuild and the memory check")
    parser.add_argument("--slow-rounds", type=int, default=1000,
                        help="run the slow peers (ImageMagick, the vips CLI chain) in the first N rounds only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--noop-files", type=int, default=10000, help="0 to skip the no-op rebuild")
    parser.add_argument("--memory-batch", type=int, default=40,
                        help="the smaller batch of the memory check (the larger is ten times it); 0 to skip it")
    parser.add_argument("--verify-images", type=int, default=10000,
                        help="images generated and built to time `ladder verify` against sha256sum; 0 to skip")
    parser.add_argument("--mixed-photos", type=int, default=len(MIXED_CAMERA_PHOTOS),
                        help="how many of the corpus' camera photos go into the mixed set")
    parser.add_argument("--hard", action="store_true",
                        help="also bench the hard set that scripts/hardset.py generates (alone when no FOLDER "
                             "is given)")
    parser.add_argument("--per-image", action="store_true",
                        help="list every image's PSNR and SSIM, ladder's beside vipsthumbnail's")
    parser.add_argument("--markdown", help="also write the results as Markdown to this file")
    parser.add_argument("--chain", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.chain:
        run_chain_program(arguments.chain, arguments.jobs, arguments.folders[0])
        return
    if not arguments.ladder or not arguments.bench:
        parser.error("--ladder and --bench are required")

    corpus = "../shared/corpus"
    work = tempfile.mkdtemp(prefix="ladder-bench-")
    try:
        sets = [(folder, os.path.abspath(folder)) for folder in arguments.folders]
        if arguments.rounds == 0:
            sets = []  # only the no-op rebuild and the memory check
        elif arguments.hard:
            import hardset
            print("bench: generating the hard set", file=sys.stderr)
            folder = os.path.join(work, "hard")
            hardset.generate_hard_set(folder)
            sets.append(("hard set (made by scripts/hardset.py)", folder))
        elif not sets:
            photos = os.path.join(corpus, "photos") if os.path.isdir(os.path.join(corpus, "photos")) \
                else "examples/photos"
            sets = [(photos, os.path.abspath(photos))]
            print("bench: generating the renders of the mixed set", file=sys.stderr)
            sets.append(("mixed set (camera photos from ../shared/corpus and renders made by the bench)",
                         mixed_set(work, corpus, arguments.mixed_photos)))
        shown, skip = [], False
        for argument in sys.argv[1:]:
            if skip or argument in ("--ladder", "--bench"):
                skip = not skip
                continue
            shown.append(argument)
        lines = [f"`{' '.join(['scripts/bench'] + shown)}`", ""]
        for index, (label, folder) in enumerate(sets):
            lines += bench_set(label, folder, arguments, os.path.join(work, f"set{index}")) + [""]
        if arguments.noop_files > 0:
            first, median, fastest, slowest = noop_rebuild(arguments.ladder, arguments.noop_files, work, arguments.jobs)
            lines += [f"No-op rebuild of {arguments.noop_files} unchanged sources: median {median:.3f} s "
                      f"(min {fastest:.3f}, max {slowest:.3f}, 5 runs); the first build took {first:.1f} s.", ""]
        if arguments.memory_batch > 0:
            print("bench: memory check", file=sys.stderr)
            rows = memory_bound(arguments.ladder, work, arguments.jobs, arguments.memory_batch,
                                arguments.memory_batch * 10)
            lines += [f"Peak PSS of ladder build (whole process tree, {arguments.jobs} jobs):", "",
                      "| sources | peak PSS |", "|---|---|"]
            lines += [f"| {label} | {peak / 1024:.0f} MiB |" for label, peak in rows] + [""]
        if arguments.verify_images > 0:
            import bench_verify
            print(f"bench: verify against sha256sum on {arguments.verify_images} images", file=sys.stderr)
            verify = argparse.Namespace(images=arguments.verify_images, rounds=max(arguments.rounds, 3))
            verify_work = os.path.join(work, "verify")
            bench_verify.prepare(verify, verify_work, arguments.ladder)
            lines += bench_verify.measure_verify(verify, verify_work, arguments.ladder, deep=False)
        cpu = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
        except (OSError, StopIteration):
            pass
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
        versions = subprocess.run([arguments.ladder, "--version"], capture_output=True, text=True).stdout.split("\n")
        lines += [f"Taken {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cpu}, {os.cpu_count()} cores, "
                  f"{platform.system()} {platform.release()}, load average at the end {' '.join(load)}; "
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
