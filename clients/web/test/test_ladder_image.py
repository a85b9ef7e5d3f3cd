"""<ladder-image> in headless Chromium, against a ladder build served by the throttled server:
what it shows first, which rungs it requests and in what order, when it loads, and how it fails."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from conftest import GRID_IMAGES, RUNGS, events, wait_for_rung


def rung_paths(build, source: str) -> dict[str, str]:
    """The URL path of each rung of a source's image, as the server sees it."""
    variants = build.entry(source)["variants"]
    return {name: "/variants/" + variants[name]["path"] for name in RUNGS}


def requested_rungs(server, paths: dict[str, str]) -> list[str]:
    """The rungs requested, in the order the requests came."""
    by_path = {path: name for name, path in paths.items()}
    return [by_path[path] for path in server.paths() if path in by_path]


def element(build, source: str, element_id: str, style: str = "", extra: str = "") -> str:
    return (
        f'<ladder-image id="{element_id}" base="/variants/" sha1="{build.sha1(source)}" '
        f'style="{style}" {extra}></ladder-image>'
    )


@pytest.mark.parametrize(
    "width, dpr, needed",
    [
        (150, 1, "small_thumb"),  # 150 device pixels: small_thumb's 160 cover them
        (150, 3, "large_thumb"),  # 450: large_thumb's 480
        (400, 1, "large_thumb"),  # 400: large_thumb's 480
        (400, 3, "full"),  # 1200: more than any rung, so the largest
    ],
)
def test_placeholder_first_then_each_rung_in_order_up_to_the_one_the_box_needs(
    pages, server, main_build, width, dpr, needed
):
    source = "photos/photo-1.png"
    paths = rung_paths(main_build, source)
    # Each rung waits until the one below it is on screen, so that order is set by events.
    for name in RUNGS:
        server.hold(paths[name], 0)
    page = pages.open(element(main_build, source, "a", f"width:{width}px"), dpr=dpr)
    wait_for_rung(page, "a", "placeholder")
    assert page.evaluate("document.querySelector('#a').rung") == "placeholder"
    expected = RUNGS[: RUNGS.index(needed) + 1]
    for name in expected:
        server.wait_until(lambda requests: any(r.path == paths[name] and r.state == "held" for r in requests))
        server.release(paths[name])
        wait_for_rung(page, "a", name)
    shown = [e["rung"] for e in events(page, "a")]
    assert shown == ["placeholder", *expected]
    assert page.evaluate("document.querySelector('#a').rung") == needed
    # Exactly the rungs up to the one needed were requested, each once, and none above it.
    assert sorted(requested_rungs(server, paths)) == sorted(expected)
    detail = events(page, "a")[-1]
    assert detail["format"] == "jpeg" and detail["url"].endswith(paths[needed])


def test_the_box_takes_the_images_aspect_ratio_before_any_rung(pages, server, main_build):
    source = "photos/hero.png"
    paths = rung_paths(main_build, source)
    for path in paths.values():
        server.hold(path, 0)
    page = pages.open(element(main_build, source, "a", "width:300px"))
    wait_for_rung(page, "a", "placeholder")
    box = page.locator("#a").bounding_box()
    assert box["height"] == pytest.approx(300 * 768 / 1024, abs=0.5)
    # The placeholder is painted: the box shows the picture's colours, not the page's white.
    shot = np.asarray(Image.open(io.BytesIO(page.locator("#a").screenshot())).convert("RGB")).astype(float)
    average = main_build.entry(source)["averageColor"]
    expected = [int(average[i : i + 2], 16) for i in (1, 3, 5)]
    assert np.abs(shot.reshape(-1, 3).mean(axis=0) - expected).max() < 24
    assert shot.std() > 1, "the ThumbHash is drawn, not only the average colour"


def test_a_larger_rung_that_arrives_first_aborts_the_smaller_which_is_never_shown(pages, server, main_build):
    source = "photos/photo-2.png"
    paths = rung_paths(main_build, source)
    server.hold(paths["small_thumb"], 0)
    page = pages.open(element(main_build, source, "a", "width:400px"))
    wait_for_rung(page, "a", "large_thumb")
    # The small rung's download is useless now: the browser gives it up.
    server.wait_until(
        lambda requests: any(r.path == paths["small_thumb"] and r.state == "aborted" for r in requests),
        what="the small rung's request to be aborted",
    )
    server.release(paths["small_thumb"])
    assert [e["rung"] for e in events(page, "a")] == ["placeholder", "large_thumb"]
    assert page.evaluate("document.querySelector('#a').rung") == "large_thumb"


def test_no_request_for_a_rung_smaller_than_one_shown(pages, server, main_build):
    source = "photos/photo-3.png"
    paths = rung_paths(main_build, source)
    page = pages.open(element(main_build, source, "a", "width:400px"))
    wait_for_rung(page, "a", "large_thumb")
    before = len(server.paths())
    # Shrinking the box never goes back down a rung.
    page.evaluate("document.querySelector('#a').style.width = '100px'")
    # A second element of the same image starts from the rung the page already has.
    page.evaluate(
        """(sha1) => {
          const second = document.createElement("ladder-image");
          second.id = "b"; second.setAttribute("base", "/variants/"); second.setAttribute("sha1", sha1);
          second.style.width = "400px";
          document.body.append(second);
        }""",
        main_build.sha1(source),
    )
    wait_for_rung(page, "b", "large_thumb")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    after = [p for p in server.paths()[before:] if p in paths.values()]
    assert paths["small_thumb"] not in after
    assert page.evaluate("document.querySelector('#a').rung") == "large_thumb"
    assert [e["rung"] for e in events(page, "b")] == ["placeholder", "large_thumb"]


def test_a_resized_element_picks_its_rung_again(pages, server, main_build):
    source = "photos/photo-4.png"
    paths = rung_paths(main_build, source)
    page = pages.open(element(main_build, source, "a", "width:150px"))
    wait_for_rung(page, "a", "small_thumb")
    assert requested_rungs(server, paths) == ["small_thumb"]
    page.evaluate("document.querySelector('#a').style.width = '400px'")
    wait_for_rung(page, "a", "large_thumb")
    page.evaluate("document.querySelector('#a').style.width = '800px'")
    wait_for_rung(page, "a", "full")
    assert requested_rungs(server, paths) == ["small_thumb", "large_thumb", "full"]
    assert [e["rung"] for e in events(page, "a")] == ["placeholder", "small_thumb", "large_thumb", "full"]


def test_elements_far_below_the_fold_load_only_when_scrolled_near(pages, server, main_build):
    top = "photos/photo-5.png"
    below = "photos/photo-6.png"
    below_paths = rung_paths(main_build, below)
    page = pages.open(
        element(main_build, top, "top")
        + '<div style="height:6000px"></div>'
        + element(main_build, below, "below"),
        viewport=(1100, 900),
    )
    wait_for_rung(page, "top", "small_thumb")
    wait_for_rung(page, "below", "placeholder")
    assert requested_rungs(server, below_paths) == [], "nothing of the far element is downloaded yet"
    # 2,000 pixels above it: still not near.
    element_top = page.evaluate("document.querySelector('#below').getBoundingClientRect().top + scrollY")
    page.evaluate(f"scrollTo(0, {element_top - 900 - 2000})")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert requested_rungs(server, below_paths) == []
    # 1,000 pixels above it (within the 1,250-pixel margin): it loads before it is in view.
    page.evaluate(f"scrollTo(0, {element_top - 900 - 1000})")
    wait_for_rung(page, "below", "small_thumb")
    assert page.evaluate("document.querySelector('#below').getBoundingClientRect().top") > 900
    assert requested_rungs(server, below_paths) == ["small_thumb"]


def test_a_missing_rung_is_reported_and_the_next_one_tried(pages, server, main_build):
    source = "photos/photo-7.png"
    paths = rung_paths(main_build, source)
    server.fail(paths["large_thumb"], 404)
    server.hold(paths["full"], 0)
    page = pages.open(element(main_build, source, "a", "width:400px"))
    wait_for_rung(page, "a", "small_thumb")
    server.release(paths["full"])
    wait_for_rung(page, "a", "full")
    found = events(page, "a")
    # The failure is reported in a ladder-rung event with the error, and nothing is shown for it.
    failed = [e for e in found if e["rung"] == "large_thumb"]
    assert len(failed) == 1 and failed[0]["error"] and failed[0]["url"].endswith(paths["large_thumb"])
    shown = [e["rung"] for e in found if "error" not in e]
    assert shown == ["placeholder", "small_thumb", "full"]
    assert page.evaluate("document.querySelector('#a').rung") == "full"
    # The next rung up was asked for only once the failed one had failed.
    log = server.paths()
    assert log.index(paths["large_thumb"]) < log.index(paths["full"])
    assert next(r for r in server.requested(paths["large_thumb"])).status == 404


def test_five_hundred_elements_share_the_index_and_load_only_what_is_near(pages, server, grid_build):
    sha1s = sorted(grid_build.manifest["images"])
    assert len(sha1s) == GRID_IMAGES
    body = (
        "<style>ladder-image { width: 100px; display: inline-block; margin: 2px; vertical-align: top; }</style>"
        + "".join(f'<ladder-image id="g{i}" base="/grid/" sha1="{sha1}"></ladder-image>' for i, sha1 in enumerate(sha1s))
    )
    page = pages.open(body, viewport=(1100, 600))
    # Every element paints its placeholder (the index files are tiny and shared).
    page.wait_for_function(
        "() => [...document.querySelectorAll('ladder-image')].every((e) => e.rung !== null)", timeout=120_000
    )
    # Each index file was fetched once, however many elements it serves.
    index_requests = [p for p in server.paths() if p.startswith("/grid/index/")]
    assert len(index_requests) == len(set(index_requests))
    assert "/grid/index/layout.json" in index_requests
    # The rows near the viewport load their thumbnails; the rest of the page does not.
    near_count = page.evaluate(
        """() => [...document.querySelectorAll('ladder-image')]
             .filter((e) => e.getBoundingClientRect().top < innerHeight + 1250).length"""
    )
    assert near_count < GRID_IMAGES
    page.wait_for_function(
        "(n) => window.ladderEvents.filter((e) => e.rung === 'small_thumb').length >= n", arg=near_count, timeout=120_000
    )
    thumbs = [p for p in server.paths() if "small_thumb" in p]
    assert len(thumbs) == near_count == len(set(thumbs))
    assert not [p for p in server.paths() if "large_thumb" in p or "-full-" in p]
    last = f"g{GRID_IMAGES - 1}"
    assert page.evaluate(f"document.querySelector('#{last}').rung") == "placeholder"
    page.evaluate("scrollTo(0, document.body.scrollHeight)")
    wait_for_rung(page, last, "small_thumb")


def test_bad_attributes_name_the_element_and_attribute_on_the_console(pages, server, main_build):
    sha1 = main_build.sha1("photos/photo-0.png")
    body = (
        '<ladder-image id="no-base" sha1="%s"></ladder-image>'
        '<ladder-image id="bad-sha1" base="/variants/" sha1="cafe"></ladder-image>'
        '<ladder-image id="no-image" base="/variants/"></ladder-image>'
        '<ladder-image id="bad-fit" base="/variants/" sha1="%s" fit="sideways"></ladder-image>'
        '<ladder-image id="bad-formats" base="/variants/" sha1="%s" formats="gif"></ladder-image>'
        '<ladder-image id="unknown" base="/variants/" sha1="%s"></ladder-image>'
        '<ladder-image id="good" base="/variants/" sha1="%s"></ladder-image>'
    ) % (sha1, sha1, sha1, "0" * 40, sha1)
    page = pages.open(body)
    wait_for_rung(page, "good", "small_thumb")
    # An image the manifest does not have is reported once its index file has been read.
    page.wait_for_function("() => window.ladderErrors.some((e) => e.id === 'unknown')")
    assert page.evaluate("document.querySelector('#unknown').rung") is None
    errors = [m for m in pages.console if m.startswith("error:")]
    expected = [
        ("no-base", "base"),
        ("bad-sha1", "sha1"),
        ("no-image", "sha1"),
        ("bad-fit", "fit"),
        ("bad-formats", "formats"),
        ("unknown", "sha1"),
    ]
    for element_id, attribute in expected:
        assert any(
            f'<ladder-image id="{element_id}"' in m and f'"{attribute}"' in m for m in errors
        ), f"no console error names {element_id} and {attribute}: {errors}"
    assert not any('id="good"' in m for m in errors)
    # The elements with a usable image despite a bad attribute still show it, with the default.
    wait_for_rung(page, "bad-fit", "small_thumb")
    wait_for_rung(page, "bad-formats", "small_thumb")


def test_a_source_path_resolves_through_the_manifest_once(pages, server, main_build):
    body = (
        '<ladder-image id="a" base="/variants/" source="photos/photo-0.png"></ladder-image>'
        '<ladder-image id="b" base="/variants/" source="photos/photo-1.png"></ladder-image>'
    )
    page = pages.open(body)
    wait_for_rung(page, "a", "small_thumb")
    wait_for_rung(page, "b", "small_thumb")
    assert server.paths().count("/variants/manifest.json") == 1
    assert events(page, "a")[-1]["url"].endswith(main_build.entry("photos/photo-0.png")["variants"]["small_thumb"]["path"])


def test_fit_cover_needs_a_larger_rung_than_contain_for_the_same_box(pages, server, main_build):
    # A 4:3 picture in a square box of 150 pixels: whole (contain) it is 150 x 113, which
    # small_thumb (160 x 120) covers; filling the box (cover) it is 200 x 150, which needs large_thumb.
    source = "photos/photo-0.png"
    body = element(main_build, source, "contain", "width:150px;height:150px", 'fit="contain"') + element(
        main_build, source, "cover", "width:150px;height:150px", 'fit="cover"'
    )
    page = pages.open(body)
    wait_for_rung(page, "contain", "small_thumb")
    wait_for_rung(page, "cover", "large_thumb")
    assert page.evaluate("document.querySelector('#contain').rung") == "small_thumb"


def test_show_ladder_gives_a_framework_the_same_behaviour(pages, server, main_build):
    sha1 = main_build.sha1("photos/photo-2.png")
    body = """<div id="box" style="width:400px"></div>
    <script type="module">
      import { showLadder } from "/client/ladder-image.js";
      window.seen = [];
      window.handle = showLadder(document.getElementById("box"), {
        base: "/variants/", sha1: "%s", alt: "waves", onRung: (detail) => seen.push(detail.rung),
      });
    </script>""" % sha1
    page = pages.open(body)
    page.wait_for_function("() => window.seen && window.seen.includes('large_thumb')")
    assert page.evaluate("window.handle.rung") == "large_thumb"
    seen = page.evaluate("window.seen")
    # small_thumb may come first or be overtaken (and then aborted): either way, only upwards.
    assert seen in (["placeholder", "small_thumb", "large_thumb"], ["placeholder", "large_thumb"])
    assert page.evaluate("document.getElementById('box').getAttribute('aria-label')") == "waves"
    box = page.locator("#box").bounding_box()
    assert box["height"] == pytest.approx(400 * 900 / 1200, abs=0.5)
    page.evaluate("window.handle.destroy()")
    assert page.evaluate("document.getElementById('box').querySelectorAll('img, canvas').length") == 0


def test_an_element_moved_while_it_loads_shows_one_picture(pages, server, main_build):
    sha1 = main_build.sha1("photos/photo-5.png")
    page = pages.open('<div id="first"></div><div id="second"></div>')
    page.evaluate(
        """(sha1) => {
          const element = document.createElement("ladder-image");
          element.id = "a"; element.setAttribute("base", "/variants/"); element.setAttribute("sha1", sha1);
          document.getElementById("first").append(element);
          // Moved before its index entry has arrived: disconnected and connected again.
          document.getElementById("second").append(element);
        }""",
        sha1,
    )
    wait_for_rung(page, "a", "small_thumb")
    assert [e["rung"] for e in events(page, "a")] == ["placeholder", "small_thumb"]
    pictures = page.evaluate("document.querySelector('#a').shadowRoot.querySelectorAll('img, canvas').length")
    assert pictures == 1
