#!/usr/bin/env python3
"""Takes docs/web-example.jpg: examples/web/index.html over the build of the sample photos, caught
while it loads. Some rungs are held back by the server, so that the picture shows each stage:
placeholders, small thumbnails, and large ones, each with the badge the page sets from the
element's `ladder-rung` events.

After scripts/run (and scripts/bootstrap, which installs Playwright in .build/web-test-tools):

    .build/web-test-tools/bin/python examples/web/screenshot.py
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "clients" / "web" / "test"))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from server import LadderServer  # noqa: E402


def main():
    manifest = json.loads((REPO / "build" / "variants" / "manifest.json").read_text())
    images = sorted(manifest["images"].items(), key=lambda item: item[1]["sources"][0])
    server = LadderServer({"/": REPO}).start()
    # The second image stays a placeholder, the first and third show their small thumbnails. A
    # held response keeps its connection, and Chromium opens six per server: the other images
    # load through the two left.
    for index, (_, entry) in enumerate(images[:3]):
        variants = entry["variants"]
        if index == 1:
            server.hold("/build/variants/" + variants["small_thumb"]["path"], 0)
        server.hold("/build/variants/" + variants["large_thumb"]["path"], 0)
    browser_path = next(shutil.which(name) for name in ["chromium", "chromium-browser", "google-chrome"] if shutil.which(name))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=browser_path, args=["--force-color-profile=srgb"])
            page = browser.new_page(viewport={"width": 1000, "height": 720})
            page.goto(server.url("/examples/web/index.html"))
            page.wait_for_function(
                """(n) => { const badges = [...document.querySelectorAll('#grid .rung')].map((b) => b.textContent);
                            const count = (rung) => badges.filter((t) => t === rung).length;
                            return count('large_thumb') === n - 3 && count('small_thumb') === 2
                                && count('placeholder') === 1; }""",
                arg=len(images),
            )
            page.wait_for_timeout(500)
            shot = Image.open(io.BytesIO(page.screenshot()))
            browser.close()
    finally:
        server.stop()
    # A JPEG of high quality keeps the file small without the banding a palette gives photos.
    shot.convert("RGB").save(REPO / "docs" / "web-example.jpg", quality=90, optimize=True)
    print(f"wrote {REPO / 'docs' / 'web-example.jpg'}")


if __name__ == "__main__":
    main()
