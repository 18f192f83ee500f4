"""The playground in headless Chromium: the lock, live progress, the card, the live Arms tab.

Uses Debian's chromium (`/usr/bin/chromium`, installed by scripts/test); Playwright drives it
without downloading a browser. The service's stand-in model takes 0.5 s a call, so a question
runs long enough to be watched (and clicked at) while it runs. A screenshot of every tab is
taken here or in test_browser_card.py (the Ask and Arms tabs), and of the Arms tab at 390 px in
test_browser_narrow.py (to docs/screenshots/ when THINKPATH_SCREENSHOT_DIR names it; see the
conftest).
"""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.integration.ui.conftest import GuardedService


def path_outcomes(url: str, arm: str) -> int:
    arms = httpx.get(f"{url}/api/v1/arms", timeout=30).json()
    return int(next(a["outcomes"] for a in arms if a["role"] == "path" and a["arm_id"] == arm))


def user_scored(url: str, decision_id: str) -> bool:
    """Whether a "user" score was recorded for `decision_id` (probed with a score of 0.0).

    The outcome log applies one score per (decision, source): a first one is applied (201,
    applied), a repeated one is not, and a different one conflicts (409).
    """
    response = httpx.post(
        f"{url}/api/v1/decisions/{decision_id}/outcomes",
        json={"source": "user", "reward": 0.0},
        timeout=30,
    )
    if response.status_code == 409:
        return True
    assert response.status_code == 201, response.text
    return not response.json()["applied"]


# Whether the page ever showed the first stage's line with no card yet.
PROGRESS_BEFORE_CARD = r"""() => { window.progressBeforeCard = false;
  new MutationObserver(() => {
    const staged = /Kind of query/.test(document.querySelector('#progress').innerText);
    const card = document.querySelector('#card').innerText;
    if (staged && !/Unverified|decision [0-9a-f]{32}/.test(card)) window.progressBeforeCard = true;
  }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def settled(page: Page) -> Page:
    """The page once no event is pending (nothing greyed out or 'processing')."""
    expect(page.get_by_text(re.compile(r"processing \|"))).to_have_count(0)
    expect(page.locator(".pending")).to_have_count(0)
    return page


def ask(page: Page, query: str) -> None:
    page.locator("#query textarea").fill(query)
    page.locator("#ask").click()


def shown_decision(page: Page) -> str:
    found = re.search(r"decision ([0-9a-f]{32})", page.locator("#card").inner_text())
    assert found is not None, page.locator("#card").inner_text()
    return found.group(1)


def templates_and_simulate(page: Page, screenshots: Path) -> None:
    """A new template lands at the top; Simulate draws; a screenshot of each tab."""
    page.get_by_role("tab", name="Templates").click()
    expect(page.locator("#templates-table")).to_contain_text("direct_answer")
    page.locator("#add-template").click()
    expect(page.locator("#template-status")).to_contain_text("Added check_units")
    expect(page.locator("#templates-table").get_by_role("row").nth(1)).to_contain_text(
        "check_units"
    )
    settled(page).screenshot(path=str(screenshots / "playground-templates.png"), full_page=True)

    page.get_by_role("tab", name="Simulate").click()
    page.locator("#simulate").click()
    expect(page.locator("#simulate-tab .js-plotly-plot, #simulate-tab img")).to_have_count(
        1, timeout=120_000
    )
    settled(page).screenshot(path=str(screenshots / "playground-simulate.png"), full_page=True)


def test_ask_is_locked_while_it_runs_and_shows_progress_and_a_card(
    slow_service_url: str, browser: Browser, screenshots: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    page.set_default_timeout(120_000)
    page.goto(slow_service_url)

    # progress arrives stage by stage, before the answer does (the first stage: the kind of
    # query, here a new one); watched as the page changes, since the calculator answers this
    # question at once and the card follows within a second
    page.evaluate(PROGRESS_BEFORE_CARD)
    ask(page, "What is 12 + 30?")
    expect(page.locator("#score-good")).to_be_disabled()
    expect(page.locator("#progress")).to_contain_text("Done in")
    assert page.evaluate("window.progressBeforeCard") is True
    expect(page.locator("#card")).to_contain_text("42")
    card = page.locator("#card").inner_text()
    # no expected answer, and the referee was never measured on such questions: not asked
    labels = ("Kind of query:", "Reasoning path:", "Tool:", "Thinking seed:", "Score:")
    for label in (*labels, "not scored yet", "Unverified"):
        assert label in card, card
    assert "free" in page.locator("#cost").inner_text()  # local, or no model call at all
    expect(page.locator("#trace-table")).to_contain_text("Chose the reasoning path")
    first = shown_decision(page)

    # a second question: while it runs, a score cannot reach the first decision
    ask(page, "What is 2 + 3?")
    expect(page.locator("#score-bad")).to_be_disabled()
    expect(page.locator("#ask")).to_be_disabled()
    page.locator("#score-bad").click(force=True)  # a disabled button: the click is dropped
    expect(page.locator("#card")).to_contain_text("2 + 3 = 5")  # the calculator's reading
    expect(page.locator("#score-good")).to_be_enabled()
    second = shown_decision(page)
    assert second != first
    # the path arm the decision chose (a direct tool answer's card says no path was used)
    shown = httpx.get(f"{slow_service_url}/api/v1/decisions/{second}", timeout=30).json()
    arm = shown["path"]["arm_id"]
    assert not user_scored(slow_service_url, first)

    # the score goes to the decision on screen, and the Arms tab shows it without a click
    page.locator("#score-good").click()
    expect(page.locator("#score-status")).to_contain_text(f"for {second}")
    assert user_scored(slow_service_url, second)
    page.get_by_role("tab", name="Arms").click()
    expect(page.locator("#arms-note")).to_contain_text("choose a kind or type a question above")
    row = page.locator("#arms-table").get_by_role("row").filter(has_text=arm).first
    # the outcomes column (the sixth) says what the engine learned, score included: no Refresh
    # click needed (how many outcomes one decision counts for is the engine's rule)
    expect(row.get_by_role("gridcell").nth(5)).to_have_text(
        str(path_outcomes(slow_service_url, arm))
    )
    page.locator("#arms-query textarea").fill("What is 2 + 3?")
    page.locator("#refresh-arms").click()
    # a refresh embeds the typed question and reads every role's policies: on a loaded machine
    # (load 8-10) that took more than the default 5 s
    expect(row.get_by_role("gridcell").nth(6)).to_have_text(
        re.compile("cold|confident"), timeout=30_000
    )

    templates_and_simulate(page, screenshots)


@pytest.mark.parametrize("body", [b"{", b'{"query": 5}', b'{"query": "x", "oops": 1}'])
def test_the_live_service_answers_bad_input_with_a_4xx(service_url: str, body: bytes) -> None:
    response = httpx.post(
        f"{service_url}/api/v1/decisions",
        content=body,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 422


def test_log_in_with_the_token_then_ask(
    guarded_service: GuardedService, browser: Browser, screenshots: Path
) -> None:
    """With a token, a person meets ThinkPath's login page, then the playground works as usual."""
    page = browser.new_page(viewport={"width": 1280, "height": 1200})
    page.set_default_timeout(120_000)
    page.goto(guarded_service.url)
    expect(page).to_have_url(f"{guarded_service.url}/login")
    page.locator("#token").fill("not-the-token-at-all")
    page.locator("#login").click()
    expect(page.get_by_role("alert")).to_contain_text("Wrong token")
    page.locator("#token").fill(guarded_service.token)
    page.locator("#login").click()
    ask(page, "What is 12 + 30?")
    expect(page.locator("#card")).to_contain_text("Kind of query")
    page.screenshot(path=str(screenshots / "playground-after-login.png"), full_page=True)
