"""The playground in headless Chromium at 1280 px: the bus question's card tells what the tool
was given and gave, a score is corrected (Wrong, then Correct), the Arms tab follows every score,
the trace table fits, and retiring asks first. Screenshots of the Ask and Arms tabs come from here
(docs/screenshots/ when THINKPATH_SCREENSHOT_DIR names it; see the conftest)."""

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from tests.integration.ui.test_browser import ask, settled, shown_decision

BUS = "A bus has 30 seats and 12 are empty. How many are taken?"
WIDTH = 1280


def arms_row(page: Page, arm: str) -> list[str]:
    row = page.locator("#arms-table").get_by_role("row").filter(has_text=arm).first
    return [cell.inner_text() for cell in row.get_by_role("gridcell").all()]


def test_the_bus_card_a_corrected_score_and_the_arms_tab(
    slow_service_url: str, browser: Browser, screenshots: Path
) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": 1600})
    page.set_default_timeout(120_000)
    page.goto(slow_service_url)
    page.locator("#expected textarea").fill("18")
    ask(page, BUS)
    expect(page.locator("#progress")).to_contain_text("Done.")
    card = page.locator("#card")
    expect(card).to_contain_text("input: " + BUS)
    expect(card).to_contain_text("output: ")
    expect(card).to_contain_text("read the whole question")  # said, or said to be unknown
    expect(card).not_to_contain_text("worked this out exactly")  # no prompt scaffolding
    expect(card).not_to_contain_text("ran fine")
    expect(card).to_contain_text("by the exact check")
    shown_decision(page)
    arm = re.search(r"Reasoning path: (\S+)", card.inner_text())
    assert arm is not None
    chosen = arm.group(1)

    # the trace table fits at 1280 px, its last column included, with no Markdown leaking
    header = page.locator("#trace-table").get_by_text("LLM calls").first
    expect(header).to_be_visible()
    box = header.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= WIDTH, box
    assert "`" not in page.locator("#trace-table").inner_text()
    settled(page).screenshot(path=str(screenshots / "playground-ask.png"), full_page=True)

    # Wrong, then Correct: the second replaces the first; the card follows each at once
    page.locator("#score-bad").click()
    expect(page.locator("#score-status")).to_contain_text("Recorded your score 0.00")
    expect(card).to_contain_text("0.00, by you")
    page.get_by_role("tab", name="Arms").click()
    expect(page.locator("#arms-table")).to_contain_text(chosen)
    wrong = arms_row(page, chosen)
    page.get_by_role("tab", name="Ask").click()
    page.locator("#score-good").click()
    expect(page.locator("#score-status")).to_contain_text("Changed your score from 0.00 to 1.00")
    expect(card).to_contain_text("1.00, by you")
    expect(card).not_to_contain_text("0.00, by you")
    expect(card).to_contain_text("contradicts the exact check")  # the checker said 0.00

    # the Arms tab has followed: the arm's mean went up, and P(best) is shown without a query
    page.get_by_role("tab", name="Arms").click()
    columns = ["role", "arm", "origin", "pulls", "mean", "outcomes", "state", "P(best)"]
    mean, best = columns.index("mean"), columns.index("P(best)")
    expect(
        page.locator("#arms-table").get_by_role("row").filter(has_text=chosen).first
    ).not_to_contain_text(wrong[mean] + "\t")
    right = arms_row(page, chosen)
    assert float(right[mean]) > float(wrong[mean]), (wrong, right)
    assert float(right[best]) > 0
    arms_tab = page.locator("#arms-tab")
    expect(arms_tab).to_contain_text("P(best) is the chance, under these same posteriors")
    expect(arms_tab).to_contain_text("running weighted mean")
    settled(page).screenshot(path=str(screenshots / "playground-arms.png"), full_page=True)


def test_retiring_asks_first_and_the_helper_text_follows(
    slow_service_url: str, browser: Browser
) -> None:
    page = browser.new_page(viewport={"width": WIDTH, "height": 1600})
    page.set_default_timeout(120_000)
    page.goto(slow_service_url)
    page.get_by_role("tab", name="Templates").click()
    expect(page.locator("#detours-note")).to_contain_text("None yet")
    page.locator("#retire-id input").click()
    page.get_by_role("option", name="analogy", exact=True).click()
    page.locator("#retire-reason textarea").fill("never helps here")
    page.locator("#retire").click()
    expect(page.locator("#template-status")).to_contain_text("Retire analogy for good?")
    confirm = page.locator("#confirm-retire")
    expect(confirm).to_be_visible()
    confirm.click()
    expect(page.locator("#template-status")).to_contain_text("Retired analogy")
    expect(confirm).to_be_hidden()
    expect(page.locator("#detours-table")).to_contain_text("retired: never helps here")
    expect(page.locator("#detours-note")).to_contain_text("Detours the engine wrote")
    expect(page.locator("#detours-note")).not_to_contain_text("None yet")
