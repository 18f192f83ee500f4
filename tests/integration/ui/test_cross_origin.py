"""In headless Chromium: a page on a foreign origin cannot read the service's answers.

The pages come from small HTTP servers at two loopback origins that differ from the service's by
port: one listed in THINKPATH_CORS_ORIGINS, one not. Being real loopback servers keeps
Chromium's local-network rules out of the picture (a page that Playwright's router made up
counts as public, and Chromium then blocks its requests to loopback whatever CORS says), so
what blocks the foreign page is the service's CORS policy and nothing else.
"""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.integration.ui.conftest import GuardedService
from ui.headless_browser import CHROMIUM, QUIET_FLAGS

READ = """async ([url, headers]) => {
    try {
        const response = await fetch(url, {headers});
        return {read: true, status: response.status, body: await response.text()};
    } catch (error) {
        return {read: false, error: String(error)};
    }
}"""

BLIND_POST = """async ([url, body]) => {
    // no-cors: the browser sends it without a preflight and hides the answer from the page
    const headers = {"content-type": "text/plain"};
    await fetch(url, {method: "POST", mode: "no-cors", body, headers});
    return true;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=QUIET_FLAGS)
        yield launched
        launched.close()


class _Site(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><h1>another site</h1>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:  # keep the test output quiet
        return


@pytest.fixture(scope="module")
def sites(guarded_service: GuardedService) -> Iterator[None]:
    """Serve a page at the listed origin, the foreign one and a third for the tokenless test."""
    servers = []
    for origin in (guarded_service.allowed_origin, guarded_service.foreign_origin):
        server = ThreadingHTTPServer(("127.0.0.1", urlsplit(origin).port or 80), _Site)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield
    for server in servers:
        server.shutdown()
        server.server_close()


def page_at(browser: Browser, origin: str) -> Page:
    page = browser.new_page()
    page.goto(f"{origin}/")
    return page


@pytest.mark.usefixtures("sites")
def test_a_foreign_origin_cannot_read_even_with_the_token(
    browser: Browser, guarded_service: GuardedService
) -> None:
    page = page_at(browser, guarded_service.foreign_origin)
    for path, headers in (
        ("/api/v1/health", guarded_service.bearer),  # preflighted: refused
        ("/api/v1/health", {}),  # simple request: no access-control-allow-origin
        ("/config", {}),  # Gradio's own route: its permissive headers are stripped
    ):
        result = page.evaluate(READ, [f"{guarded_service.url}{path}", headers])
        assert result["read"] is False, (path, result)
        assert "Failed to fetch" in result["error"]
    page.close()


@pytest.mark.usefixtures("sites")
def test_the_listed_origin_reads_with_the_token(
    browser: Browser, guarded_service: GuardedService
) -> None:
    page = page_at(browser, guarded_service.allowed_origin)
    url = f"{guarded_service.url}/api/v1/health"
    result = page.evaluate(READ, [url, guarded_service.bearer])
    assert result["read"] is True, result
    assert result["status"] == 200
    assert '"status":"ok"' in result["body"]
    without_token = page.evaluate(READ, [url, {}])
    assert without_token == {"read": True, "status": 401, "body": without_token["body"]}
    page.close()


@pytest.mark.usefixtures("sites")
def test_a_foreign_page_cannot_change_the_tokenless_service_blind(
    browser: Browser, service_url: str, guarded_service: GuardedService
) -> None:
    """The loopback service has no token: the Origin check is what stops a blind POST."""
    before = len(httpx.get(f"{service_url}/api/v1/templates", timeout=30).json())
    page = page_at(browser, guarded_service.foreign_origin)
    body = '{"id": "always-seven", "name": "Seven", "description": "d", "prompt": "Answer: 7"}'
    page.evaluate(BLIND_POST, [f"{service_url}/api/v1/templates", body])
    read = page.evaluate(READ, [f"{service_url}/api/v1/templates", {}])
    assert read["read"] is False
    page.close()
    assert len(httpx.get(f"{service_url}/api/v1/templates", timeout=30).json()) == before


def test_a_rebound_host_name_is_refused_by_the_live_service(service_url: str) -> None:
    """DNS rebinding: the request reaches 127.0.0.1 but names a foreign host."""
    response = httpx.post(
        f"{service_url}/api/v1/decisions",
        json={"query": "What is 1 + 1?"},
        headers={"host": "rebind.evil.test"},
        timeout=30,
    )
    assert response.status_code == 400
    assert "THINKPATH_ALLOWED_HOSTS" in response.text
