"""The web client's ThumbHash decoder, run in Chromium, against reference values: pictures encoded
by the `thumbhash` package from PyPI and decoded by `fast-thumbhash` (bindings to the format
author's Rust crate), written by Tests/LadderManifestTests/References/make-thumbhash-references.py
--json; and the placeholder an element paints, against fast-thumbhash's decoding of the build's own
placeholders."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from conftest import IN_CI, wait_for_rung

REFERENCES = json.loads((Path(__file__).parent / "thumbhash-references.json").read_text())["cases"]

DECODE = """async (hashes) => {
  const { thumbHashToRGBA, base64ToBytes } = await import("/client/thumbhash.js");
  return hashes.map((hash) => {
    const picture = thumbHashToRGBA(base64ToBytes(hash));
    return { width: picture.width, height: picture.height, rgba: Array.from(picture.rgba) };
  });
}"""


def test_every_reference_hash_decodes_to_the_reference_picture(pages, server):
    assert len(REFERENCES) >= 7
    page = pages.open("")
    decoded = page.evaluate(DECODE, [case["hash"] for case in REFERENCES])
    for case, picture in zip(REFERENCES, decoded, strict=True):
        expected = case["decoded"]
        name = f"{case['pattern']} {case['width']}x{case['height']}"
        assert (picture["width"], picture["height"]) == (expected["width"], expected["height"]), name
        samples = base64.b64decode(expected["rgba"])
        assert len(picture["rgba"]) == len(samples), name
        worst = max(abs(a - b) for a, b in zip(picture["rgba"], samples))
        assert worst <= 1, f"{name}: a sample differs by {worst}"


def test_short_or_broken_hashes_decode_to_nothing(pages, server):
    page = pages.open("")
    result = page.evaluate(
        """async () => {
          const { thumbHashToRGBA, base64ToBytes } = await import("/client/thumbhash.js");
          return [base64ToBytes("not base64!"), thumbHashToRGBA(new Uint8Array([1, 2, 3])),
                  thumbHashToRGBA(base64ToBytes("3wcKNZqAh3dw"))];
        }"""
    )
    assert result == [None, None, None]


def test_the_placeholder_painted_is_the_builds_thumbhash(pages, server, main_build):
    try:
        import fast_thumbhash
    except ImportError:
        if IN_CI:
            pytest.fail("fast-thumbhash is not installed (CI=true: scripts/bootstrap installs it)")
        pytest.skip("fast-thumbhash is not installed; scripts/bootstrap installs it in .build/web-test-tools")
    source = "photos/photo-3.png"
    entry = main_build.entry(source)
    for variant in entry["variants"].values():
        server.hold("/variants/" + variant["path"], 0)
    page = pages.open(f'<ladder-image id="a" base="/variants/" sha1="{main_build.sha1(source)}"></ladder-image>')
    wait_for_rung(page, "a", "placeholder")
    painted = page.evaluate(
        """() => {
          const canvas = document.querySelector("#a").shadowRoot.querySelector("canvas");
          const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
          return { width: canvas.width, height: canvas.height, rgba: Array.from(data.data) };
        }"""
    )
    width, height, rgba = fast_thumbhash.thumb_hash_to_rgba(base64.b64decode(entry["placeholder"]))
    assert (painted["width"], painted["height"]) == (width, height)
    worst = max(abs(a - b) for a, b in zip(painted["rgba"], bytes(rgba)))
    assert worst <= 1, f"a placeholder sample differs by {worst}"
