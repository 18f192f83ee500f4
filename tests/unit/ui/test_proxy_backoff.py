"""One proxy, one budget: behind a trusted proxy, forged X-Forwarded-For addresses share it.

The service's whole guard stack behind `TrustedProxyHeaders`, reached from a peer that the test
names (TestClient's own peer is "testclient", no address); both back-offs run on one hand-driven
clock, and a pause recorder stands in for `asyncio.sleep`.
"""

import argparse
from collections import Counter
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from ui.service.auth import MAX_PAUSE_S, SESSION_COOKIE, Access
from ui.service.forwarded import TRUSTED_PROXY, TrustedProxyHeaders
from ui.service.guard_stack import Guards
from ui.service.replies import send_response
from ui.service.throttle import FailureThrottle, proxy_throttle

TOKEN = "test-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
PROXY_FREE = 100  # proxy_throttle's free failures, read back from it below
ADDRESS_FREE = 5  # FailureThrottle's default, the budget of one address


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


class Pauses:
    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def reached(scope: Scope, receive: Receive, send: Send) -> None:
    await send_response(send, 200, b"reached", b"text/plain")


def from_peer(app: ASGIApp, peer: Callable[[], str]) -> ASGIApp:
    """`app` as the server hands it a connection from `peer()` (asked once per request)."""

    async def connected(scope: Scope, receive: Receive, send: Send) -> None:
        await app({**scope, "client": (peer(), 50000)}, receive, send)

    return connected


class Service:
    """The guards behind `TrustedProxyHeaders` trusting `trusted`, over an app that says
    'reached'; `peer` is the TCP peer of the next request."""

    def __init__(self, trusted: str = "127.0.0.1", *, max_addresses: int = 10_000) -> None:
        self.clock, self.pauses = Clock(), Pauses()
        self.access = Access(
            TOKEN,
            throttle=FailureThrottle(clock=self.clock, max_addresses=max_addresses),
            proxies=proxy_throttle(clock=self.clock),
            pause=self.pauses,
        )
        self.peer = "127.0.0.1"
        gated = TrustedProxyHeaders(Guards(self.access).wrap(reached), [trusted])
        self.client = TestClient(from_peer(gated, lambda: self.peer), base_url="http://localhost")

    def guess(self, n: int, forwarded_for: str) -> int:
        headers = {"Authorization": f"Bearer guess-{n:016d}", "X-Forwarded-For": forwarded_for}
        return self.client.get("/", headers=headers).status_code


def forged(n: int) -> str:
    return f"10.0.{n // 256}.{n % 256}"


def test_the_budget_read_here_is_the_shipped_one() -> None:
    assert proxy_throttle().free_failures == PROXY_FREE
    assert FailureThrottle().free_failures == ADDRESS_FREE


def test_a_new_forged_address_per_guess_buys_no_more_than_the_proxys_budget() -> None:
    service = Service()
    statuses: Counter[int] = Counter()
    for n in range(1000):
        statuses[service.guess(n, forged(n))] += 1
    # Before: 1,000 answered 401, none slowed. Now the proxy's free ones, then back-off.
    assert statuses == {401: PROXY_FREE, 429: 1000 - PROXY_FREE}
    # Each one past the budget held: the first back-off is 1 s, the later ones past the pause's cap.
    assert service.pauses.seconds == [1.0] + [MAX_PAUSE_S] * (1000 - PROXY_FREE - 1)


def test_at_a_guess_a_second_the_refill_adds_one_answer_in_36_seconds_at_most() -> None:
    service = Service()
    statuses: Counter[int] = Counter()
    for n in range(1000):
        statuses[service.guess(n, forged(n))] += 1
        service.clock.now += 1.0
    # 102: the two forgiven while the first hundred were spent; once in back-off the count is
    # held at its cap, so a guesser faster than the refill gets no more.
    assert statuses == {401: PROXY_FREE + 2, 429: 1000 - PROXY_FREE - 2}


def test_one_forged_address_each_time_is_slowed_after_five_as_before() -> None:
    service = Service()
    statuses = [service.guess(n, "10.0.0.7") for n in range(50)]
    assert statuses == [401] * ADDRESS_FREE + [429] * (50 - ADDRESS_FREE)


def test_an_honest_user_behind_the_proxy_gets_in_during_the_attack() -> None:
    service = Service()
    honest = {**BEARER, "X-Forwarded-For": "192.0.2.44"}
    for n in range(300):
        service.guess(n, forged(n))
        if n % 25 == 24:
            owner = service.client.get("/", headers=honest)
            assert (owner.status_code, owner.text) == (200, "reached")
    login = service.client.post(
        "/login",
        data={"token": TOKEN},
        headers={"X-Forwarded-For": "192.0.2.44"},
        follow_redirects=False,
    )
    assert login.status_code == 303
    assert SESSION_COOKIE in login.cookies
    # The price, documented: that user's own typo is slowed too, and told whose back-off it is.
    typo = service.client.get(
        "/", headers={"Authorization": "Bearer typo", "X-Forwarded-For": "192.0.2.44"}
    )
    assert typo.status_code == 429
    assert "through this proxy" in typo.json()["detail"]
    assert 1 <= int(typo.headers["retry-after"]) <= 61  # the proxy's back-off is at most 60 s


def test_forged_logins_share_the_budget_too() -> None:
    service = Service()
    statuses: Counter[int] = Counter()
    for n in range(300):
        login = service.client.post(
            "/login", data={"token": f"guess-{n}"}, headers={"X-Forwarded-For": forged(n)}
        )
        statuses[login.status_code] += 1
    assert statuses == {401: PROXY_FREE, 429: 300 - PROXY_FREE}


def test_wrong_tokens_on_a_websocket_are_counted_too() -> None:
    service = Service()
    for n in range(PROXY_FREE + 20):
        wrong = {
            "Authorization": f"Bearer guess-{n}",
            "X-Forwarded-For": forged(n),
            "host": "localhost",  # TestClient names "testserver" on websockets, whatever the URL
        }
        with (
            pytest.raises(WebSocketDisconnect),
            service.client.websocket_connect("/ws", headers=wrong),
        ):
            pass
    assert len(service.pauses.seconds) == 20  # each past the budget held, as over HTTP
    assert service.guess(0, "192.0.2.1") == 429


def test_the_budget_refills_so_honest_typos_never_reach_back_off() -> None:
    service = Service()
    for n in range(500):  # a mistyped token every 40 s, for five and a half hours
        assert service.guess(n, forged(n)) == 401
        service.clock.now += 40.0


def test_after_an_attack_the_proxys_back_off_ends_within_minutes() -> None:
    service = Service()
    for n in range(5000):
        service.guess(n, forged(n))
    service.clock.now += 5 * 60.0  # eight failures forgiven, at one every 36 s
    assert service.guess(5000, "192.0.2.9") == 401


def test_the_per_address_table_stays_bounded_and_the_proxys_budget_holds() -> None:
    service = Service(max_addresses=100)
    statuses = [service.guess(n, forged(n)) for n in range(2000)]
    assert len(service.access.throttle) == 100  # the least recently failing were dropped
    assert len(service.access.proxies) == 1  # one key per trusted entry, whatever was named
    assert statuses[PROXY_FREE:] == [429] * (2000 - PROXY_FREE)


def test_a_trusted_network_is_one_budget_whatever_its_peers() -> None:
    # With 127.0.0.0/8 trusted, a local process can connect from 127.0.0.2, 127.0.0.3, ...
    service = Service("127.0.0.0/8")
    statuses: Counter[int] = Counter()
    for n in range(300):
        service.peer = f"127.0.{(n + 1) // 256}.{(n + 1) % 256}"
        statuses[service.guess(n, forged(n))] += 1
    assert statuses == {401: PROXY_FREE, 429: 300 - PROXY_FREE}


def test_an_untrusted_peer_is_counted_by_its_own_address_only() -> None:
    service = Service("10.9.9.9")
    service.peer = "198.51.100.3"
    statuses = [service.guess(n, forged(n)) for n in range(20)]
    assert statuses == [401] * ADDRESS_FREE + [429] * (20 - ADDRESS_FREE)
    assert len(service.access.proxies) == 0
    assert len(service.access.throttle) == 1  # the header was not read: one address


@pytest.mark.parametrize(
    ("trusted", "peer", "entry"),
    [
        ("127.0.0.1", "127.0.0.1", "127.0.0.1/32"),
        ("127.0.0.0/8", "127.0.0.9", "127.0.0.0/8"),
        ("::1", "::1", "::1/128"),
        ("10.0.0.0/24", "10.0.1.1", None),
        ("127.0.0.1", "testclient", None),
    ],
)
def test_a_request_is_marked_with_the_trusted_entry_it_came_through(
    trusted: str, peer: str, entry: str | None
) -> None:
    seen: list[str | None] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope.get(TRUSTED_PROXY))
        await send_response(send, 200, b"", b"text/plain")

    client = TestClient(from_peer(TrustedProxyHeaders(app, [trusted]), lambda: peer))
    client.get("/", headers={"X-Forwarded-For": "203.0.113.9"})
    assert seen == [entry]


def test_thinkpath_serve_composes_the_same_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    # As `thinkpath serve` builds it: `server_config` puts the forwarded headers outside the
    # guards, from THINKPATH_TRUSTED_PROXIES; uvicorn's own loading runs in between.
    import uvicorn

    from ui.serve import load_service_settings, server_config

    monkeypatch.setenv("THINKPATH_TRUSTED_PROXIES", "127.0.0.1")
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda _self: None)
    args = argparse.Namespace(host=None, port=None, token=None, token_file=None)
    clock = Clock()  # the shipped budgets, on a clock that stands still
    access = Access(
        TOKEN,
        throttle=FailureThrottle(clock=clock),
        proxies=proxy_throttle(clock=clock),
        pause=Pauses(),
    )
    config = server_config(Guards(access).wrap(reached), load_service_settings(args))
    config.load()
    client = TestClient(
        from_peer(config.loaded_app, lambda: "127.0.0.1"), base_url="http://localhost"
    )
    statuses: Counter[int] = Counter()
    for n in range(150):
        headers = {"Authorization": f"Bearer guess-{n}", "X-Forwarded-For": forged(n)}
        statuses[client.get("/", headers=headers).status_code] += 1
    assert statuses == {401: PROXY_FREE, 429: 150 - PROXY_FREE}
