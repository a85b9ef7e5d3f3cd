"""Fixtures of the browser tests: ladder builds of generated pictures, the throttled server that
serves them with the web client, and headless Chromium driven by Playwright.

A missing tool (Chromium, the ladder executable) skips the tests with a message, and fails them
when CI=true: scripts/bootstrap installs everything they need.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from pictures import flat_art, scans_subject, tile
from server import LadderServer

REPO = Path(__file__).resolve().parents[3]
IN_CI = os.environ.get("CI") == "true"

# Sources with names a page must escape: quotes, angle brackets, ampersands, spaces.
HOSTILE_NAMES = [
    '"><img src=x onerror="window.hacked=1">.png',
    "it's & <b>bold<b>.png",
    "space name %41.png",
]

# The fixed 5-scan script of the full rung: DC, low luma AC, each chroma AC, high luma AC, so that
# every scan changes what is on screen.
SCAN_SCRIPT = "0,1,2: 0-0,0,0; 0: 1-9,0,0; 2: 1-63,0,0; 1: 1-63,0,0; 0: 10-63,0,0;"
VARIANTS = {
    "small_thumb": {"maxWidth": 160, "maxHeight": 160, "quality": 80},
    "large_thumb": {"maxWidth": 480, "maxHeight": 480, "quality": 82},
    "full": {
        "maxWidth": 1024,
        "maxHeight": 1024,
        "quality": 85,
        "progressive": {"scans": 5, "script": {"color": SCAN_SCRIPT}},
    },
}
GRID_IMAGES = 500


def require(available, message: str):
    """Skips the test when something it needs is missing; fails it when CI=true."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{message} (CI=true: scripts/bootstrap must install it)")
    pytest.skip(message)


def chromium_path() -> str | None:
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]:
        if path := shutil.which(name):
            return path
    return None


@pytest.fixture(scope="session")
def ladder() -> Path:
    path = Path(os.environ.get("LADDER", REPO / ".build" / "release" / "ladder"))
    require(path.is_file(), f"no ladder executable at {path} (scripts/build-ladder builds it)")
    return path


def run_ladder(ladder: Path, arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([str(ladder), *arguments], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"ladder {' '.join(arguments)} exited {result.returncode}: {result.stderr}"
    return result


@dataclass
class Build:
    """A ladder build: its folder (where pipeline.json is), output folder and manifest."""

    folder: Path
    output: Path
    manifest: dict
    frames: Path | None = None

    def sha1(self, source: str) -> str:
        return next(sha1 for sha1, entry in self.manifest["images"].items() if source in entry["sources"])

    def entry(self, source: str) -> dict:
        return self.manifest["images"][self.sha1(source)]


def make_build(ladder: Path, folder: Path, pictures: dict[str, object], frames: bool = False) -> Build:
    """Writes `pictures` (name: PIL image) under folder/photos, builds them, and with `frames`
    writes what ladder's replay shows of every scan (ladder verify --frames)."""
    photos = folder / "photos"
    photos.mkdir(parents=True)
    for name, picture in pictures.items():
        picture.save(photos / name)
    pipeline = {"version": 1, "sources": ["photos"], "output": "site", "variants": VARIANTS}
    (folder / "pipeline.json").write_text(json.dumps(pipeline))
    run_ladder(ladder, ["build", "--quiet"], folder)
    build = Build(folder, folder / "site", json.loads((folder / "site" / "manifest.json").read_text()))
    if frames:
        run_ladder(ladder, ["verify", "--quiet", "--frames", "frames"], folder)
        build.frames = folder / "frames"
    return build


@pytest.fixture(scope="session")
def main_build(ladder, tmp_path_factory) -> Build:
    """The hero picture (1024x768: its full rung is the picture itself), eight photos-sized
    pictures (1200x900), and small pictures under hostile names."""
    pictures = {"hero.png": scans_subject(1024, 768)}
    for seed in range(8):
        pictures[f"photo-{seed}.png"] = tile(1200, 900, seed)
    for seed, name in enumerate(HOSTILE_NAMES):
        pictures[name] = tile(400, 300, 100 + seed)
    return make_build(ladder, tmp_path_factory.mktemp("main"), pictures, frames=True)


@pytest.fixture(scope="session")
def grid_build(ladder, tmp_path_factory) -> Build:
    """Many small pictures, each its own image, for a page of hundreds of elements."""
    pictures = {f"tile-{seed:03}.png": tile(300, 200, seed) for seed in range(GRID_IMAGES)}
    return make_build(ladder, tmp_path_factory.mktemp("grid"), pictures)


@pytest.fixture(scope="session")
def formats_folder(tmp_path_factory) -> Path:
    """Where the formats test builds its pictures with siblings; the server serves its output."""
    return tmp_path_factory.mktemp("formats")


# Which siblings each source keeps: the build writes every format (those smaller than their JPEG),
# then each source keeps these.
SIBLINGS = {
    "photos/photo-0.png": ["webp", "avif", "jxl"],
    "photos/photo-1.png": ["webp"],
    "photos/photo-2.png": ["jxl"],
    "photos/photo-3.png": ["avif"],
}
RUNGS = ["small_thumb", "large_thumb", "full"]
FORMATS = ["webp", "avif", "jxl"]


def source_sha1(manifest: dict, source: str) -> str:
    """The SHA1 under which `manifest` lists the source file `source`."""
    return next(sha1 for sha1, entry in manifest["images"].items() if source in entry["sources"])


@pytest.fixture(scope="session")
def formats_build(ladder, formats_folder) -> dict:
    """A ladder build of flat artwork with `"formats": ["webp", "avif", "jxl"]` on every variant,
    pruned so that each source keeps the siblings SIBLINGS gives it (files, manifest and index
    alike); `ladder verify` passes on what is left. Returns its manifest. ladder writes a WebP or
    AVIF sibling only when it is as close to the picture as the JPEG and smaller, which flat
    artwork is and the photos-like waves of the main build are not."""
    photos = formats_folder / "photos"
    photos.mkdir(parents=True)
    for seed, source in enumerate(SIBLINGS):
        flat_art(1200, 900, seed).save(formats_folder / source)
    variants = {name: dict(recipe, formats=FORMATS) for name, recipe in VARIANTS.items()}
    pipeline = {"version": 1, "sources": ["photos"], "output": "site", "variants": variants}
    (formats_folder / "pipeline.json").write_text(json.dumps(pipeline))
    run_ladder(ladder, ["build", "--quiet"], formats_folder)
    output = formats_folder / "site"
    manifest = json.loads((output / "manifest.json").read_text())
    layout = json.loads((output / "index" / "layout.json").read_text())
    for source, kept in SIBLINGS.items():
        sha1 = source_sha1(manifest, source)
        prefix_file = output / "index" / f"{sha1[: layout['prefixLength']]}.json"
        index = json.loads(prefix_file.read_text())
        for rung in RUNGS:
            variant = manifest["images"][sha1]["variants"][rung]
            formats = variant.get("formats", {})
            # ladder leaves out a sibling not smaller than its JPEG (a small thumbnail's WebP may
            # be): the tests ask only for the large thumbnail's, and for one sibling of each rung.
            assert formats, f"ladder wrote no sibling of {source}'s {rung}"
            if rung == "large_thumb":
                assert set(kept) <= set(formats), f"ladder wrote no {kept} of {source}'s {rung}: {formats}"
            assert all(sibling["bytes"] < variant["bytes"] for sibling in formats.values())
            for format in [f for f in formats if f not in kept]:
                (output / formats.pop(format)["path"]).unlink()
            index["images"][sha1]["variants"][rung]["formats"] = formats
        prefix_file.write_text(json.dumps(index, sort_keys=True, separators=(",", ":")) + "\n")
    (output / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n")
    # What is served is ladder's output, as ladder's own check sees it.
    run_ladder(ladder, ["verify", "--quiet"], formats_folder)
    return manifest


@pytest.fixture(scope="session")
def server(main_build, grid_build, formats_folder):
    server = LadderServer(
        {
            "/client/": REPO / "clients" / "web",
            # The example page imports the client by its place in the repository.
            "/clients/web/": REPO / "clients" / "web",
            "/examples/": REPO / "examples",
            "/variants/": main_build.output,
            "/grid/": grid_build.output,
            "/formats/": formats_folder / "site",
        }
    ).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def fresh_server(request):
    """Each test starts with an empty log, no holds and no failures."""
    if "server" in request.fixturenames:
        request.getfixturevalue("server").reset()
    yield


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    require(path, "no Chromium installed (apt-get install chromium); the browser tests are skipped")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "Playwright for Python is not installed (scripts/bootstrap installs it in .build/web-test-tools)")
    with sync_playwright() as playwright:
        # sRGB output, so that screenshots hold the decoded samples as they are.
        browser = playwright.chromium.launch(
            executable_path=path, args=["--force-color-profile=srgb", "--disable-lcd-text"]
        )
        yield browser
        browser.close()


PAGE_HEAD = """<!doctype html>
<meta charset="utf-8">
<title>ladder-image test</title>
<style>body { margin: 0; } ladder-image { width: 150px; }</style>
<script>
  window.ladderEvents = [];
  document.addEventListener("ladder-rung", (event) => {
    ladderEvents.push({ id: event.target.id, ...event.detail });
  });
  window.ladderErrors = [];
  document.addEventListener("ladder-error", (event) => {
    ladderErrors.push({ id: event.target.id, ...event.detail });
  });
</script>
<script type="module" src="/client/ladder-image.js"></script>
"""


class Pages:
    """Opens test pages in fresh browser contexts (empty caches) and records what they log."""

    def __init__(self, browser, server):
        self.browser = browser
        self.server = server
        self.contexts = []
        self.errors: list[str] = []
        self.console: list[str] = []
        self.count = 0
        self.user_agent: str | None = None

    def open(self, body: str, dpr: float = 1, viewport=(1100, 900), head: str = PAGE_HEAD, path=None):
        """Serves `head` + `body` as a page and opens it."""
        self.count += 1
        url = self.server.page(path or f"/pages/{self.count}.html", head + body)
        return self.visit(url, dpr, viewport)

    def visit(self, url: str, dpr: float = 1, viewport=(1100, 900)):
        """Opens `url` in a fresh context."""
        context = self.browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            device_scale_factor=dpr,
            **({"user_agent": self.user_agent} if self.user_agent else {}),
        )
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        page.goto(url)
        return page

    def close(self):
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser, server):
    pages = Pages(browser, server)
    yield pages
    pages.close()
    # No test page may throw: every problem is reported on the console instead.
    assert pages.errors == [], f"page errors: {pages.errors}"


def events(page, element_id: str | None = None) -> list[dict]:
    found = page.evaluate("() => window.ladderEvents")
    return [e for e in found if element_id is None or e["id"] == element_id]


def wait_for_rung(page, element_id: str, rung: str, timeout: float = 60_000):
    """Waits until the element has dispatched `ladder-rung` for `rung` (shown or failed)."""
    page.wait_for_function(
        "([id, rung]) => window.ladderEvents.some((e) => e.id === id && e.rung === rung)",
        arg=[element_id, rung],
        timeout=timeout,
    )
