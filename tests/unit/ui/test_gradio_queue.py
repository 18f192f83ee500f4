"""The playground stays up under any number of calls, and health says when it is not up.

Gradio's queue stopped for good once 2,000 newer sessions pushed out one whose event was still
queued (`ui.service.gradio_queue`). To build that backlog without waiting for thousands of
plots, the first call of the Arms view is held until all 3,000 calls are in: every later one
waits behind it, as they did behind a slow machine when 50 clients called at a time.
"""

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from engine.orchestration.facade import Engine
from tests.unit.ui.conftest import scripted_engine
from ui.service.api import create_api
from ui.service.app import create_app
from ui.service.queue_guard import QueueLimits

TOKEN = "queue-test-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
CALLS = 3000
WAIT_S = 120.0  # only a broken queue ever waits this long


class HeldArms:
    """`engine.arms` whose first call waits for `release`; it counts the calls that started."""

    def __init__(self, engine: Engine) -> None:
        self.real: Callable[..., Any] = engine.arms
        self.release = threading.Event()
        self.started = 0
        self.more = threading.Condition()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.more:
            self.started += 1
            self.more.notify_all()
        self.release.wait(timeout=WAIT_S)
        return self.real(*args, **kwargs)

    def wait_for(self, count: int, or_until: Callable[[], bool]) -> None:
        """Until `count` calls have started, or `or_until()` (checked at least every 50 ms)."""
        deadline = time.monotonic() + WAIT_S
        with self.more:
            while self.started < count and not or_until() and time.monotonic() < deadline:
                self.more.wait(timeout=0.05)


@pytest.fixture
def held(tmp_path: Path) -> tuple[FastAPI, HeldArms]:
    engine = scripted_engine(tmp_path)
    arms = HeldArms(engine)
    engine.arms = arms  # type: ignore[method-assign]
    # The fair share (`ui.service.queue_guard`) would refuse most of these calls: lifted here,
    # to test the mend beneath it, the last line should the share ever let a backlog through.
    lifted = QueueLimits(per_client=CALLS, capacity=CALLS)
    return create_app(engine, token=TOKEN, queue_limits=lifted), arms


def result_of(client: TestClient, api_name: str, data: list[Any]) -> Any:
    """Call a playground endpoint as `gradio_client` does, and read its result event."""
    joined = client.post(f"/gradio_api/call/{api_name}", json={"data": data}, headers=BEARER)
    assert joined.status_code == 200, joined.text
    stream = client.get(f"/gradio_api/call/{api_name}/{joined.json()['event_id']}", headers=BEARER)
    events = stream.text.split("\n\n")
    complete = [event for event in events if event.startswith("event: complete")]
    assert complete, stream.text
    return json.loads(complete[0].split("data: ", 1)[1])


def test_three_thousand_calls_do_not_stop_the_playground(held: tuple[FastAPI, HeldArms]) -> None:
    app, arms = held
    with TestClient(app, base_url="http://localhost") as client:
        answers = [
            client.post("/gradio_api/call/show", json={"data": ["", None, None]}, headers=BEARER)
            for _ in range(CALLS)
        ]
        assert {answer.status_code for answer in answers} == {200}
        queue = app.state.playground._queue
        arms.release.set()
        # The held call finishes and the queue goes on to the next ones; before the mend it
        # stopped as it started the second, and no third ever came.
        arms.wait_for(3, or_until=lambda: queue.stopped)
        assert not queue.stopped, "the playground's queue stopped"
        assert arms.started >= 3
        # The backlog, and the memory of results never read, are bounded by Gradio's session
        # cache (2,000), not by the number of calls.
        limit = queue.pending_messages_per_session.max_size
        assert len(queue) < limit
        assert len(queue.pending_event_ids_session) <= limit
        assert result_of(client, "listing", [])  # a fresh call is still answered
        # With the share lifted nothing stops the backlog, and health says so, with its size.
        health = client.get("/api/v1/health", headers=BEARER)
        assert (health.status_code, health.json()["status"]) == (503, "degraded")
        assert "backing up" in health.json()["problems"]["playground"]


def test_health_says_when_the_playground_has_stopped(tmp_path: Path) -> None:
    app = create_app(scripted_engine(tmp_path), token=TOKEN)
    with TestClient(app, base_url="http://localhost") as client:
        assert client.get("/api/v1/health", headers=BEARER).json()["problems"] == {}
        app.state.playground._queue.close()  # as the KeyError's `finally` did
        health = client.get("/api/v1/health", headers=BEARER)
        assert health.status_code == 503
        assert health.json()["status"] == "degraded"
        assert "queue has stopped" in health.json()["problems"]["playground"]
        refused = client.post(
            "/gradio_api/call/show", json={"data": ["", None, None]}, headers=BEARER
        )
        assert refused.status_code == 503  # what health warned of


@pytest.fixture
def api_only(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_api(scripted_engine(tmp_path)), base_url="http://localhost") as client:
        yield client


def test_the_api_alone_has_no_playground_to_report(api_only: TestClient) -> None:
    health = api_only.get("/api/v1/health")
    assert (health.status_code, health.json()["problems"]) == (200, {})
