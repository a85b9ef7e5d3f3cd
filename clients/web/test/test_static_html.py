"""`ladder html` in Chromium: the browser picks from the srcset the rung the box needs, paints the
placeholder until it loads, takes the smallest format sibling it decodes from a <picture>, and
hostile source names stay text."""

from __future__ import annotations

import io
import json
import subprocess

import numpy as np
from PIL import Image

from conftest import HOSTILE_NAMES, RUNGS


def published(ladder, arguments: list[str], cwd) -> dict:
    result = subprocess.run([str(ladder), "html", "--json", *arguments], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def page_of(markup: str) -> str:
    # The usual CSS for images with width and height attributes: the box follows the width.
    return (
        "<style>img { display: block; width: 100%; height: auto; } div { width: 400px; }</style>"
        f"<div>{markup}</div><script>window.ready = true;</script>"
    )


def wait_loaded(page, count: int):
    page.wait_for_function(
        "(n) => [...document.images].filter((i) => i.complete && i.naturalWidth > 0).length >= n", arg=count
    )


def test_the_browser_picks_the_rung_the_box_needs_from_the_srcset(pages, server, ladder, main_build):
    document = published(ladder, ["--base", "/variants/", "--sizes", "150px", "photos/photo-0.png"], main_build.folder)
    image = next(iter(document["images"].values()))
    urls = {rung["name"]: rung["url"] for rung in image["rungs"]}
    for dpr, expected in [(1, "small_thumb"), (3, "large_thumb")]:
        page = pages.open(page_of(image["html"]), dpr=dpr, head="<!doctype html>")
        wait_loaded(page, 1)
        assert page.evaluate("document.images[0].currentSrc").endswith(urls[expected])
    assert (image["width"], image["height"]) == (1200 * 1024 // 1200, 900 * 1024 // 1200)


def test_the_placeholder_shows_until_the_image_loads(pages, server, ladder, main_build):
    source = "photos/hero.png"
    document = published(ladder, ["--base", "/variants/", "--sizes", "400px", source], main_build.folder)
    image = next(iter(document["images"].values()))
    for rung in image["rungs"]:
        server.hold(rung["url"], 0)
    page = pages.open(page_of(image["html"]), head="<!doctype html>")
    server.wait_until(lambda requests: any(r.state == "held" for r in requests))
    box = page.locator("img").bounding_box()
    assert box["height"] == 300, "the box has the picture's aspect ratio before any byte of it"
    shot = np.asarray(Image.open(io.BytesIO(page.locator("img").screenshot())).convert("RGB")).astype(float)
    color = image["placeholder"]["color"]
    expected = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    assert np.abs(shot.reshape(-1, 3).mean(axis=0) - expected).max() < 24
    assert shot.std() > 1, "the ThumbHash picture is painted, not only the colour"


def test_hostile_source_names_stay_text(pages, server, ladder, main_build):
    sources = ["photos/" + name for name in HOSTILE_NAMES]
    document = published(
        ladder, ["--base", "/variants/", "--alt", '"><img src=x onerror="window.hacked=2">', *sources], main_build.folder
    )
    assert sorted(document["sources"]) == sorted(sources)
    markup = "".join(image["html"] for image in document["images"].values())
    page = pages.open(page_of(markup), head="<!doctype html>")
    page.wait_for_function("() => window.ready")
    wait_loaded(page, len(sources))
    assert page.evaluate("document.images.length") == len(sources)
    assert page.evaluate("window.hacked") is None
    assert page.evaluate("[...document.images].map((i) => i.alt)") == ['"><img src=x onerror="window.hacked=2">'] * 3


def test_a_picture_offers_the_lightest_format_the_browser_decodes(pages, server, ladder, formats_build):
    document = published(
        ladder,
        ["--manifest", "manifest.json", "--base", "/formats/", "--sizes", "400px", "photos/photo-0.png"],
        server.mounts["/formats/"],
    )
    image = next(iter(document["images"].values()))
    large = next(rung for rung in image["rungs"] if rung["name"] == "large_thumb")

    # A browser takes the first <source> whose type it decodes: the format whose files weigh least
    # over all rungs comes first (its sibling where there is one, the JPEG elsewhere).
    def weight(format):
        return sum(min(rung["formats"].get(format, {"bytes": rung["bytes"]})["bytes"], rung["bytes"])
                   for rung in image["rungs"])

    smallest = min(large["formats"], key=weight)
    page = pages.open(page_of(image["html"]), head="<!doctype html>")
    wait_loaded(page, 1)
    assert page.evaluate("document.images[0].currentSrc").endswith(large["formats"][smallest]["url"])
    assert [s["type"] for s in image["picture"]][0] == f"image/{smallest}"
    assert RUNGS == [rung["name"] for rung in image["rungs"]]
