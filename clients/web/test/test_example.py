"""examples/web: the grid of every image of a build, as a user opens it."""

from __future__ import annotations


def test_the_example_grid_shows_every_image_and_zooms_to_the_full_rung(pages, server, main_build):
    count = len(main_build.manifest["images"])
    page = pages.visit(server.url("/examples/web/index.html?base=/variants/"))
    page.wait_for_function(
        "(n) => document.querySelectorAll('#grid ladder-image').length === n", arg=count
    )
    # Every element in the first view walks to a rung, and its badge says which.
    page.wait_for_function(
        """() => [...document.querySelectorAll('#grid figure')]
             .filter((f) => f.getBoundingClientRect().top < innerHeight)
             .every((f) => f.querySelector('ladder-image').rung === f.querySelector('.rung').textContent
                           && f.querySelector('.rung').textContent.endsWith('_thumb'))"""
    )
    assert "images from /variants/manifest.json" in page.text_content("#status")
    # A click opens the picture across the page: the largest rung.
    hero = main_build.sha1("photos/hero.png")
    page.click(f'#grid ladder-image[sha1="{hero}"]')
    page.wait_for_function("() => document.querySelector('#zoomed').rung === 'full'")
