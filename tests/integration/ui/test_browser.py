"""The playground in headless Chromium: ask, score, and see the arm statistics change.

Uses Debian's chromium (`/usr/bin/chromium`, installed by scripts/test); Playwright drives it
without downloading a browser. A screenshot of each step is kept under build/screenshots/.
"""

import re
import shutil
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect, sync_playwright

from tests.integration.ui.conftest import GuardedService

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Flags that keep Chromium from reaching out to the network on its own (shared/OFFLINE.md).
QUIET_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=DnsOverHttps",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
SCREENSHOTS = Path(__file__).resolve().parents[3] / "build" / "screenshots"


def path_outcomes(url: str, arm: str) -> int:
    arms = httpx.get(f"{url}/api/v1/arms", timeout=30).json()
    return next(a["outcomes"] for a in arms if a["role"] == "path" and a["arm_id"] == arm)


def test_ask_score_and_watch_the_arms_learn(service_url: str) -> None:
    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: run scripts/test to install it"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        page: Page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.set_default_timeout(120_000)
        page.goto(service_url)

        page.locator("#query textarea").fill("What is 12 + 30?")
        page.locator("#ask").click()
        expect(page.locator("#answer")).to_contain_text("Answer: 42")
        choice = page.locator("#choice").inner_text()
        arm = re.search(r"path: (\S+)", choice)
        assert arm is not None, choice
        chosen = arm.group(1)
        page.screenshot(path=str(SCREENSHOTS / "playground-ask.png"), full_page=True)

        before = path_outcomes(service_url, chosen)
        page.locator("#score-good").click()
        expect(page.locator("#status")).to_contain_text("Recorded your score 1.00")
        assert path_outcomes(service_url, chosen) == before + 1

        page.get_by_role("tab", name="Arms").click()
        page.locator("#refresh-arms").click()
        row = page.locator("#arms-table").get_by_role("row").filter(has_text=chosen).first
        # the outcomes column (the sixth) counts the new score once the refresh lands
        expect(row.get_by_role("gridcell").nth(5)).to_have_text(str(before + 1))
        cells = [cell.strip() for cell in row.get_by_role("gridcell").all_inner_texts()]
        assert cells[:3] == ["path", chosen, "template"], cells
        page.screenshot(path=str(SCREENSHOTS / "playground-arms.png"), full_page=True)
        browser.close()


@pytest.mark.parametrize("body", [b"{", b'{"query": 5}', b'{"query": "x", "oops": 1}'])
def test_the_live_service_answers_bad_input_with_a_4xx(service_url: str, body: bytes) -> None:
    response = httpx.post(
        f"{service_url}/api/v1/decisions",
        content=body,
        headers={"content-type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 422


def test_log_in_with_the_token_then_ask(guarded_service: GuardedService) -> None:
    """With a token, a person meets ThinkPath's login page, then the playground works as usual."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        page: Page = browser.new_page(viewport={"width": 1280, "height": 1200})
        page.set_default_timeout(120_000)
        page.goto(guarded_service.url)
        expect(page).to_have_url(f"{guarded_service.url}/login")
        page.locator("#token").fill("not-the-token-at-all")
        page.locator("#login").click()
        expect(page.get_by_role("alert")).to_contain_text("Wrong token")
        page.locator("#token").fill(guarded_service.token)
        page.locator("#login").click()
        page.locator("#query textarea").fill("What is 12 + 30?")
        page.locator("#ask").click()
        expect(page.locator("#answer")).to_contain_text("Answer: 42")
        page.screenshot(path=str(SCREENSHOTS / "playground-after-login.png"), full_page=True)
        browser.close()
