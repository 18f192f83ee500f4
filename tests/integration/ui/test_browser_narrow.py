"""The Arms tab in headless Chromium at a phone's 390 px and at 1280 px (issue 27).

At 390 px the Arms table is wider than the page: it scrolls sideways inside itself, a hint above
it says so, and its last column can be reached; nothing widens the page itself. The plots' titles
sit above their figures instead of floating over the figures' first rows. The 390 px screenshot
goes to `playground-arms-390.png` (docs/screenshots/ when THINKPATH_SCREENSHOT_DIR names it).
"""

from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Locator, Page, expect

from tests.integration.ui.test_browser import settled
from tests.integration.ui.test_browser_card import COLUMNS

PHONE = 390
PLOTS = ("#arms-posteriors", "#arms-rewards")


def box_of(locator: Locator) -> FloatRect:
    box = locator.bounding_box()
    assert box is not None, locator
    return box


def overlap(one: FloatRect, other: FloatRect) -> bool:
    apart_x = one["x"] + one["width"] <= other["x"] or other["x"] + other["width"] <= one["x"]
    apart_y = one["y"] + one["height"] <= other["y"] or other["y"] + other["height"] <= one["y"]
    return not (apart_x or apart_y)


def open_arms(browser: Browser, url: str, width: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.set_default_timeout(120_000)
    page.goto(url)
    page.get_by_role("tab", name="Arms").click()
    # the first read of the arms waits for the queue: seconds on a loaded machine
    expect(page.locator("#arms-table")).to_contain_text("analogy", timeout=60_000)
    for plot in PLOTS:
        expect(page.locator(f"{plot} img")).to_be_visible(timeout=60_000)
    return settled(page)


def table_overflows(page: Page) -> bool:
    """Whether the Arms table is wider than the box it scrolls in."""
    overflows: bool = page.locator("#arms-table").evaluate(
        """table => [...table.querySelectorAll('*')].some(
            e => e.scrollWidth > e.clientWidth + 1
                && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))"""
    )
    return overflows


def expect_plots_clear_of_their_titles(page: Page) -> None:
    """No label floats over a figure (at 390 px one hid the first arm), and a title sits above."""
    for plot in PLOTS:
        figure = box_of(page.locator(f"{plot} img"))
        for label in page.locator(f"{plot} [data-testid='block-label']").all():
            if label.is_visible():
                assert not overlap(box_of(label), figure), (plot, box_of(label), figure)
        title = box_of(page.locator(f"{plot}-title"))
        assert title["y"] + title["height"] <= figure["y"], (plot, title, figure)


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_the_arms_tab_fits_the_viewport(
    service_url: str, browser: Browser, screenshots: Path, width: int
) -> None:
    page = open_arms(browser, service_url, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    hint = page.locator("#arms-scroll-hint")
    overflows = table_overflows(page)
    # the table scrolls sideways exactly where the hint is shown: on a phone, not on a desktop
    assert overflows == (width == PHONE)
    if overflows:
        expect(hint).to_be_visible()
        expect(hint).to_contain_text("sideways")
    else:
        expect(hint).to_be_hidden()
    # every column can be brought into view, the last one included
    headers = page.locator("#arms-table thead th")
    expect(headers).to_have_count(len(COLUMNS))
    for index, column in enumerate(COLUMNS):
        header = headers.nth(index)
        expect(header).to_contain_text(column)
        header.scroll_into_view_if_needed()
        box = box_of(header)
        assert box["x"] >= 0, (column, box)
        assert box["x"] + box["width"] <= width, (column, box)
    # the first arm's row is not covered by anything
    first = page.locator("#arms-table").get_by_role("row").filter(has_text="analogy").first
    first.scroll_into_view_if_needed()
    covering = first.evaluate(
        """row => { const b = row.getBoundingClientRect();
            const hit = document.elementFromPoint(b.x + 8, b.y + b.height / 2);
            return row.contains(hit) ? null : (hit && hit.outerHTML.slice(0, 120)); }"""
    )
    assert covering is None, covering
    expect_plots_clear_of_their_titles(page)
    if width == PHONE:
        page.locator("#arms-table thead th").first.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / "playground-arms-390.png"), full_page=True)
