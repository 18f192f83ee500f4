"""The Arms tab in headless Chromium at a phone's 390 px and at 1280 px (issue 27).

At 390 px the Arms table is wider than the page: it scrolls sideways inside itself, a hint above
it says so, and its last column can be reached; nothing widens the page itself. The plots' titles
sit above their figures instead of floating over the figures' first rows. The 390 px screenshot
goes to `playground-arms-390.png` (docs/screenshots/ when THINKPATH_SCREENSHOT_DIR names it).

At 390 px no table breaks a word (issue 40: trace headers one letter per line, template ids cut
mid-word): the trace, templates and detours tables keep a readable width and scroll sideways;
`playground-ask-390.png` and `playground-templates-390.png` show it. "Done" and the card come
together there too.
"""

from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Locator, Page, expect

from tests.integration.ui.test_browser import ask, settled
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


# Each word of the text under `root` whose letters land on more than one line: a header wrapped
# one letter per line, an id cut mid-word. A break after a hyphen is an ordinary line break.
BROKEN_WORDS = r"""(root) => { const broken = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    for (const match of node.textContent.matchAll(/[^\s-]+-?/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
        .map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(match[0]);
    } }
  return broken; }"""
# Records whether the card was on the page the moment "Done" first showed (issue 40: "Done"
# came seconds before the card).
WATCH_DONE = r"""() => { window.cardWithDone = null;
  new MutationObserver(() => {
    const done = /Done in/.test(document.querySelector('#progress').innerText);
    if (done && window.cardWithDone === null)
      window.cardWithDone = /decision [0-9a-f]{32}/.test(document.querySelector('#card').innerText);
  }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def calm(page: Page) -> Page:
    """`settled`, waiting longer first: on a loaded two-core machine a tab's refresh can run for
    more than the 5 s `settled` allows."""
    expect(page.locator(".pending")).to_have_count(0, timeout=60_000)
    return settled(page)


def expect_no_word_broken(page: Page, table: str) -> None:
    headers = page.locator(f"{table} thead th")
    expect(headers.first).to_be_visible()
    broken = page.locator(table).evaluate(BROKEN_WORDS)
    assert broken == [], (table, broken)


def test_at_390_px_every_table_reads_whole_words_and_done_comes_with_the_card(
    slow_service_url: str, browser: Browser, screenshots: Path
) -> None:
    page = browser.new_page(viewport={"width": PHONE, "height": 800})
    page.set_default_timeout(120_000)
    page.goto(slow_service_url)
    page.evaluate(WATCH_DONE)
    ask(page, "What is 17 * 23?")
    expect(page.locator("#progress")).to_contain_text("Done in")
    assert page.evaluate("window.cardWithDone") is True
    expect(page.locator("#trace-table")).to_contain_text("Chose the tool")
    expect(page.locator("#ask-posteriors img")).to_be_visible(timeout=60_000)  # it follows
    calm(page)
    expect_no_word_broken(page, "#trace-table")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE  # tables scroll
    page.screenshot(path=str(screenshots / "playground-ask-390.png"), full_page=True)

    page.get_by_role("tab", name="Templates").click()
    expect(page.locator("#templates-table")).to_contain_text("systematic_decomposition")
    calm(page)
    for table in ("#templates-table", "#detours-table"):
        expect_no_word_broken(page, table)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    page.screenshot(path=str(screenshots / "playground-templates-390.png"), full_page=True)

    page.get_by_role("tab", name="Arms").click()
    expect(page.locator("#arms-table")).to_contain_text("analogy")
    calm(page)
    expect_no_word_broken(page, "#arms-table")
