"""The full rung's scans draw as they arrive: the server holds the full-size progressive JPEG at
each of its `scanEnds`, and what Chromium shows there is compared, by PSNR computed here, with two
pictures of each scan: ladder's own replay frames (`ladder verify --frames`), and what libjpeg-
turbo's djpeg makes of exactly that prefix of the file (an independent decoder)."""

from __future__ import annotations

import io
import subprocess

import numpy as np
import pytest
from PIL import Image

from conftest import Pages, require, wait_for_rung
from pictures import psnr

# At a scan's end, a decoder that reads a stream which goes on (a browser) draws all of the scan
# but its last rows: libjpeg's block smoothing and fancy upsampling wait for the next row, which
# comes once the next scan's header is read. Those rows are left out of the comparison.
UNFINISHED_ROWS = 64


def screenshot(page, selector: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(page.locator(selector).screenshot(animations="disabled"))).convert("RGB"))


def changed_screenshot(page, selector: str, previous: np.ndarray | None) -> np.ndarray:
    """A screenshot once the browser has drawn what it received: the first that differs from
    `previous` and is followed by an identical one (decoding and painting are asynchronous, and
    Chromium passes a loading image's new bytes to its decoder at most once a second)."""
    last = None
    for _ in range(300):
        shot = screenshot(page, selector)
        changed = previous is None or not np.array_equal(shot, previous)
        if changed and last is not None and np.array_equal(shot, last):
            return shot
        last = shot
        page.wait_for_timeout(50)
    raise AssertionError("the element's picture did not change")


def djpeg(jpeg: bytes) -> np.ndarray:
    result = subprocess.run(["djpeg", "-dct", "int", "-ppm"], input=jpeg, capture_output=True)
    assert result.returncode == 0, result.stderr
    return np.asarray(Image.open(io.BytesIO(result.stdout)).convert("RGB"))


class Held:
    """What the page showed at each scan end, with the two sets of pictures to compare it with."""

    def __init__(self, screenshots, replay_frames, decoder_frames, height):
        self.screenshots = screenshots
        self.replay_frames = replay_frames
        self.decoder_frames = decoder_frames
        self.height = height

    def closest(self, k: int, frames: list[np.ndarray]) -> tuple[int, dict]:
        """Which of frames k-1, k, k+1 the screenshot at scan end k is closest to (by PSNR over
        the rows the browser has drawn), with every score."""
        rows = self.height if k == len(frames) - 1 else self.height - UNFINISHED_ROWS
        shot = self.screenshots[k][:rows]
        scores = {j: round(float(psnr(shot, frames[j][:rows])), 2) for j in (k - 1, k, k + 1) if 0 <= j < len(frames)}
        return max(scores, key=scores.get), scores


@pytest.fixture(scope="module")
def held(browser, server, main_build) -> Held:
    """Loads the page once for the tests below, holding it at each scan end in turn."""
    pages = Pages(browser, server)
    try:
        return hold_at_each_scan_end(pages, server, main_build)
    finally:
        pages.close()
        assert pages.errors == [], f"page errors: {pages.errors}"


def hold_at_each_scan_end(pages, server, main_build) -> Held:
    server.reset()
    require(subprocess.run(["which", "djpeg"], capture_output=True).returncode == 0, "djpeg is not installed")
    source = "photos/hero.png"
    sha1 = main_build.sha1(source)
    full = main_build.entry(source)["variants"]["full"]
    width, height = full["width"], full["height"]
    assert (width, height) == (1024, 768)
    scan_ends = full["scanEnds"]
    assert len(scan_ends) == 5
    data = (main_build.output / full["path"]).read_bytes()
    replay_frames = [
        np.asarray(Image.open(main_build.frames / sha1 / f"full-scan-{k}.jpg").convert("RGB"))
        for k in range(1, len(scan_ends) + 1)
    ]
    # The file's first scanEnds[k] bytes, ended there: what the manifest promises shows scan k + 1.
    decoder_frames = [djpeg(data[:end] + (b"" if end == len(data) else b"\xff\xd9")) for end in scan_ends]

    path = "/variants/" + full["path"]
    server.hold(path, 0)
    # 1024 CSS pixels at a device pixel ratio of 1: the full rung, shown pixel for pixel.
    page = pages.open(
        f'<ladder-image id="hero" base="/variants/" sha1="{sha1}" style="width:1024px"></ladder-image>',
        viewport=(1100, 900),
    )
    wait_for_rung(page, "hero", "large_thumb")
    server.wait_until(lambda requests: any(r.path == path and r.state == "held" for r in requests))
    # large_thumb, stretched: what is on screen before the full rung sends a byte.
    previous = changed_screenshot(page, "#hero", None)
    screenshots = []
    for k, end in enumerate(scan_ends):
        server.hold(path, end)
        server.wait_until(
            lambda requests: any(r.path == path and (r.sent >= end or r.state == "complete") for r in requests),
            what=f"{end} bytes of the full rung to be sent",
        )
        if end == len(data):
            wait_for_rung(page, "hero", "full")
        previous = changed_screenshot(page, "#hero", previous)
        assert previous.shape == (height, width, 3)
        screenshots.append(previous)
    server.release(path)
    # The rung's event came only once the whole file was there.
    assert [e for e in page.evaluate("window.ladderEvents") if e["rung"] == "full"]
    held = Held(screenshots, replay_frames, decoder_frames, height)
    for k, end in enumerate(scan_ends):
        # PSNR (dB) of the page at this scan end against scans k-1, k, k+1 (counted from 0).
        print(f"scanEnds[{k}] = {end}: djpeg {held.closest(k, decoder_frames)[1]}, replay {held.closest(k, replay_frames)[1]}")
    return held


def test_each_scan_end_shows_that_scan(held):
    """Each of the five pictures on screen is the one a decoder makes of that prefix of the file."""
    for k in range(len(held.screenshots)):
        best, scores = held.closest(k, held.decoder_frames)
        assert best == k, f"at scanEnds[{k}] the page is closest to scan {best + 1} as djpeg draws it: {scores}"

    # ...and, for every scan but the first, ladder's replay frame of it.
    for k in range(1, len(held.screenshots)):
        best, scores = held.closest(k, held.replay_frames)
        assert best == k, f"at scanEnds[{k}] the page is closest to ladder's replay frame {best + 1}: {scores}"


def test_the_first_scan_on_screen_is_ladders_first_replay_frame(held):
    """The replay paints the DC scan smoothed, as Chromium does, not blocky: it paints each scan
    before libjpeg reads the next scan's header."""
    best, scores = held.closest(0, held.replay_frames)
    assert best == 0, f"at scanEnds[0] the page is closest to ladder's replay frame {best + 1}: {scores}"
