"""The playground's queue is shared fairly (`ui.service.queue_guard`), through Gradio's HTTP API.

Every call goes to the real service (`create_app`: the API with the Gradio playground mounted),
as the page and `gradio_client` call it: `POST /gradio_api/queue/join` (or `call/<name>`), then
`GET /gradio_api/queue/data?session_hash=...`. Clients are told apart as the token gate tells
them apart behind a trusted proxy: by the X-Forwarded-For address of a trusted peer. The queue's
clock is a counter the tests move, so expiry is tested without waiting.
"""

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.unit.ui.conftest import scripted_engine
from tests.unit.ui.test_gradio_queue import BEARER, TOKEN, HeldArms
from ui.service.app import create_app
from ui.service.forwarded import TrustedProxyHeaders
from ui.service.queue_guard import PlaygroundQueue, QueueLimits

LIMITS = QueueLimits(per_client=8, capacity=40, unread_after_s=60.0, backlog_at=6)
CALLS = 3000
PROXY = ("127.0.0.1", 40000)  # the trusted proxy every test request comes through


class HeldView(HeldArms):
    """The Arms view's reading of the arms held; health's (`engine.arms()`, no arguments) not."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            return self.real()
        return super().__call__(*args, **kwargs)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Service:
    client: TestClient
    book: PlaygroundQueue
    arms: HeldView
    clock: Clock
    show: int  # the Arms tab's function, as the page names it in `queue/join`

    def join(self, user: str, session: str | None = None) -> Any:
        """The Arms tab's call from `user` (an address), under `session` (a new one if None)."""
        body = {"data": ["", None, "", ""], "fn_index": self.show}
        body["session_hash"] = session or uuid.uuid4().hex
        return self.client.post("/gradio_api/queue/join", json=body, headers=as_user(user))

    def read(self, user: str, session: str) -> Any:
        return self.client.get(
            "/gradio_api/queue/data", params={"session_hash": session}, headers=as_user(user)
        )

    def waiting(self) -> int:
        return len(self.book.queue)


def as_user(address: str) -> dict[str, str]:
    return {**BEARER, "X-Forwarded-For": address}


def completed(stream: Any) -> list[Any]:
    """The `process_completed` messages of a `queue/data` stream."""
    assert stream.status_code == 200, stream.text
    messages = [
        json.loads(line[len("data: ") :])
        for line in stream.text.split("\n\n")
        if line.startswith("data: ")
    ]
    return [message for message in messages if message["msg"] == "process_completed"]


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    engine = scripted_engine(tmp_path)
    arms = HeldView(engine)
    engine.arms = arms  # type: ignore[method-assign]
    app = create_app(engine, token=TOKEN, queue_limits=LIMITS)
    book: PlaygroundQueue = app.state.playground_queue
    clock = Clock()
    book.clock = clock
    show = next(index for index, fn in app.state.playground.fns.items() if fn.api_name == "show")
    proxied = TrustedProxyHeaders(app, ["127.0.0.1"])
    with TestClient(proxied, base_url="http://localhost", client=PROXY) as client:
        yield Service(client, book, arms, clock, show)
        arms.release.set()


def test_three_thousand_unread_calls_hold_one_share_and_a_second_user_is_answered(
    service: Service,
) -> None:
    # The first call holds the Arms view, so every later one waits: a slow machine's backlog.
    assert service.join("10.0.0.1").status_code == 200
    service.arms.wait_for(1, or_until=lambda: False)
    second_user = uuid.uuid4().hex
    results: list[Any] = []
    reader = threading.Thread(
        target=lambda: results.append(service.read("10.0.0.2", second_user)), daemon=True
    )
    statuses: dict[int, int] = {}
    most_waiting = 0
    for call in range(1, CALLS):
        if call == 1000:  # the second user calls, and reads its result as the page does
            assert service.join("10.0.0.2", second_user).status_code == 200
            reader.start()
            while not service.book.is_read(second_user):
                reader.join(timeout=0.01)
        if call % 100 == 0:  # a minute passes: what the first user did not read expires
            service.clock.now += LIMITS.unread_after_s + 1
        status = service.join("10.0.0.1").status_code
        statuses[status] = statuses.get(status, 0) + 1
        most_waiting = max(most_waiting, service.waiting())
    # One share at a time: 8 a minute were taken; the rest were refused, none dropped silently.
    assert set(statuses) == {200, 429}
    assert most_waiting <= LIMITS.per_client + 1  # the share, and the second user's call
    assert service.book.expired > 0
    assert service.book.held() <= LIMITS.per_client + 1
    service.arms.release.set()
    reader.join(timeout=120)
    assert len(results) == 1, "the second user's result never came"
    [done] = completed(results[0])
    assert done["success"], done  # the second user's event ran, though it waited a minute


def test_an_unread_result_expires_and_its_stream_says_so(service: Service) -> None:
    sessions = [uuid.uuid4().hex for _ in range(3)]
    for session in sessions:
        assert service.join("10.0.0.1", session).status_code == 200
    assert service.book.held_by("10.0.0.1") == 3
    service.clock.now += LIMITS.unread_after_s - 1
    service.book.expire_unread()
    assert service.book.held_by("10.0.0.1") == 3  # not yet
    service.clock.now += 2
    service.book.expire_unread()
    assert service.book.held_by("10.0.0.1") == 0
    assert service.waiting() == 0  # the queued ones left the queue, the running one's result too
    assert not set(sessions) & set(service.book.queue.pending_messages_per_session)
    late = service.read("10.0.0.1", sessions[1])
    assert late.status_code == 404
    assert "not read within 60 s" in late.json()["detail"]


def test_the_share_is_per_client(service: Service) -> None:
    for _ in range(LIMITS.per_client):
        assert service.join("10.0.0.1").status_code == 200
    refused = service.join("10.0.0.1")
    assert refused.status_code == 429
    assert "holds 8 playground calls" in refused.json()["detail"]
    assert refused.headers["retry-after"] == "60"
    assert service.join("10.0.0.2").status_code == 200  # another address has its own share


def test_all_clients_together_hold_at_most_the_capacity(service: Service) -> None:
    for user in range(LIMITS.capacity // LIMITS.per_client):
        for _ in range(LIMITS.per_client):
            assert service.join(f"10.0.1.{user}").status_code == 200
    full = service.join("10.0.2.1")
    assert full.status_code == 503
    assert "queue is full" in full.json()["detail"]


def test_a_result_read_twice_answers_at_once(service: Service) -> None:
    service.arms.release.set()
    session = uuid.uuid4().hex
    assert service.join("10.0.0.1", session).status_code == 200
    [done] = completed(service.read("10.0.0.1", session))
    assert done["success"]
    again = service.read("10.0.0.1", session)  # before the guard, this hung on heartbeats
    assert again.status_code == 404
    assert "already read" in again.json()["detail"]
    assert service.book.held_by("10.0.0.1") == 0


def test_a_call_result_read_twice_answers_at_once(service: Service) -> None:
    service.arms.release.set()
    joined = service.client.post(
        "/gradio_api/call/show", json={"data": ["", "", ""]}, headers=as_user("10.0.0.1")
    )
    event = joined.json()["event_id"]
    first = service.client.get(f"/gradio_api/call/show/{event}", headers=as_user("10.0.0.1"))
    assert "event: complete" in first.text
    again = service.client.get(f"/gradio_api/call/show/{event}", headers=as_user("10.0.0.1"))
    assert again.status_code == 404
    assert "already read" in again.json()["detail"]


def test_a_second_reader_of_a_live_stream_is_refused(service: Service) -> None:
    session = uuid.uuid4().hex
    assert service.join("10.0.0.1", session).status_code == 200
    service.arms.wait_for(1, or_until=lambda: False)
    results: list[Any] = []
    first = threading.Thread(
        target=lambda: results.append(service.read("10.0.0.1", session)), daemon=True
    )
    first.start()
    while not service.book.is_read(session):
        first.join(timeout=0.01)
    second = service.read("10.0.0.1", session)
    assert second.status_code == 409
    assert "another connection" in second.json()["detail"]
    service.arms.release.set()
    first.join(timeout=120)
    [done] = completed(results[0])
    assert done["success"]  # the first reader got its result whole


def test_health_reports_a_queue_backing_up_with_its_size(service: Service) -> None:
    assert service.client.get("/api/v1/health", headers=BEARER).json()["status"] == "ok"
    for _ in range(LIMITS.backlog_at + 1):  # one runs (held), the others wait
        assert service.join("10.0.0.1").status_code == 200
    service.arms.wait_for(1, or_until=lambda: False)
    health = service.client.get("/api/v1/health", headers=BEARER)
    assert health.status_code == 503
    assert health.json()["status"] == "degraded"
    problem = health.json()["problems"]["playground"]
    assert f"backing up: {LIMITS.backlog_at} calls waiting" in problem
    service.clock.now += LIMITS.unread_after_s + 1  # nobody reads them: they expire
    service.book.expire_unread()
    health = service.client.get("/api/v1/health", headers=BEARER)
    assert (health.status_code, health.json()["status"]) == (200, "ok")


def test_limits_refuse_a_share_above_the_capacity() -> None:
    with pytest.raises(ValueError, match="per_client <= capacity"):
        QueueLimits(per_client=10, capacity=5)
