"""Format siblings (`formats` in the manifest and the index): the element fetches the smallest
sibling the browser decodes, chosen by the browser through <picture>-style type checks, and the
JPEG otherwise. The siblings are made by the `formats_build` fixture (conftest.py)."""

from __future__ import annotations

from conftest import Pages, chromium_path, events, source_sha1, wait_for_rung  # noqa: F401 (fixtures)

def formats_of(manifest: dict, sha1: str, rung: str) -> dict:
    return manifest["images"][sha1]["variants"][rung]["formats"]


def smallest(formats: dict) -> str:
    return min(formats, key=lambda name: formats[name]["bytes"])


def element(sha1: str, element_id: str, width: int) -> str:
    return f'<ladder-image id="{element_id}" base="/formats/" sha1="{sha1}" style="width:{width}px"></ladder-image>'


def test_each_rung_comes_in_the_smallest_format_the_browser_decodes(pages, server, formats_build):
    sha1 = source_sha1(formats_build, "photos/photo-0.png")
    page = pages.open(element(sha1, "a", 1100), viewport=(1200, 1000))
    wait_for_rung(page, "a", "full")
    shown = {e["rung"]: e for e in events(page, "a") if e["rung"] != "placeholder"}
    requested = server.paths()
    for rung, detail in shown.items():
        formats = formats_of(formats_build, sha1, rung)
        expected = smallest(formats)
        assert detail["format"] == expected, f"{rung}: {detail}"
        assert detail["url"].endswith("/formats/" + formats[expected]["path"])
        # Only that file of the rung was fetched: neither the JPEG nor another sibling.
        jpeg = "/formats/" + formats_build["images"][sha1]["variants"][rung]["path"]
        others = ["/formats/" + f["path"] for name, f in formats.items() if name != expected]
        assert jpeg not in requested and not set(others) & set(requested), requested
    assert "full" in shown


def test_the_choice_follows_what_the_browser_decodes_not_its_name(browser, server, formats_build):
    """The same page in a browser that claims to be another (its user agent) chooses the same
    files, and in one whose JPEG XL decoder is switched off, the JPEG instead of the jxl."""
    sha1 = source_sha1(formats_build, "photos/photo-2.png")  # only jxl siblings
    body = element(sha1, "a", 400)
    jxl = "/formats/" + formats_of(formats_build, sha1, "large_thumb")["jxl"]["path"]
    jpeg = "/formats/" + formats_build["images"][sha1]["variants"]["large_thumb"]["path"]

    pages = Pages(browser, server)
    try:
        pages.user_agent = "Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko"
        page = pages.open(body)
        wait_for_rung(page, "a", "large_thumb")
        assert events(page, "a")[-1]["format"] == "jxl"
        assert jxl in server.paths() and jpeg not in server.paths()
    finally:
        pages.close()
    assert pages.errors == []

    server.reset()
    from playwright.sync_api import sync_playwright  # noqa: F401 (the browser fixture checked it)

    without_jxl = browser.browser_type.launch(
        executable_path=chromium_path(), args=["--force-color-profile=srgb", "--disable-features=JXLImageFormat"]
    )
    try:
        pages = Pages(without_jxl, server)
        page = pages.open(body)
        wait_for_rung(page, "a", "large_thumb")
        assert events(page, "a")[-1]["format"] == "jpeg"
        # The browser skipped the jxl by its type: it never asked for it.
        assert jpeg in server.paths() and jxl not in server.paths()
        pages.close()
        assert pages.errors == []
    finally:
        without_jxl.close()


def test_a_missing_sibling_falls_back_to_the_jpeg_of_the_same_rung(pages, server, formats_build):
    sha1 = source_sha1(formats_build, "photos/photo-1.png")  # only webp siblings
    webp = "/formats/" + formats_of(formats_build, sha1, "large_thumb")["webp"]["path"]
    jpeg = "/formats/" + formats_build["images"][sha1]["variants"]["large_thumb"]["path"]
    server.fail(webp, 404)
    page = pages.open(element(sha1, "a", 400))
    page.wait_for_function(
        "() => window.ladderEvents.some((e) => e.rung === 'large_thumb' && !e.error)"
    )
    large = [e for e in events(page, "a") if e["rung"] == "large_thumb"]
    assert [e["format"] for e in large] == ["webp", "jpeg"]
    assert large[0]["error"] and "error" not in large[1]
    log = server.paths()
    assert log.index(webp) < log.index(jpeg)
