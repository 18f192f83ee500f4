"""3,000 unread playground calls and a second user, against a real `thinkpath serve`.

The service runs behind a trusted proxy (`THINKPATH_TRUSTED_PROXIES=127.0.0.1`), so each test
client is the address it forwards, as the token gate and the queue's share count it
(`ui.service.queue_guard`). The calls use Gradio's HTTP queue API as the page does:
`POST /gradio_api/queue/join`, then `GET /gradio_api/queue/data?session_hash=...`.
"""

import json
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.ui.conftest import serving

TOKEN = "queue-integration-token-" + "q" * 16
CALLS = 3000
SHARE = 32  # `QueueLimits.per_client`, the shipped share


@pytest.fixture(scope="module")
def proxied_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    home = tmp_path_factory.mktemp("queue-home")
    environment = {"THINKPATH_API_TOKEN": TOKEN, "THINKPATH_TRUSTED_PROXIES": "127.0.0.1"}
    with serving(home, environment=environment) as url:
        yield url, home / "serve.log"


def as_user(address: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", "X-Forwarded-For": address}


def show_index(client: httpx.Client) -> int:
    """The Arms tab's function, as the page finds it in the app's config."""
    config = client.get("/config", headers=as_user("10.9.9.9")).json()
    index: int = next(
        dependency["id"]
        for dependency in config["dependencies"]
        if dependency.get("api_name") == "show"
    )
    return index


def completed(stream: httpx.Response) -> list[dict[str, Any]]:
    messages = [
        json.loads(line[len("data: ") :])
        for line in stream.text.split("\n\n")
        if line.startswith("data: ")
    ]
    return [message for message in messages if message["msg"] == "process_completed"]


def test_unread_calls_hold_one_share_and_a_second_user_is_answered(
    proxied_service: tuple[str, Path],
) -> None:
    url, log = proxied_service
    with httpx.Client(base_url=url, timeout=120) as client:
        statuses = Counter(
            client.post(
                "/gradio_api/call/show", json={"data": ["", "", ""]}, headers=as_user("10.0.0.1")
            ).status_code
            for _ in range(CALLS)
        )
        assert statuses[429] > CALLS // 2, statuses
        assert set(statuses) <= {200, 429}, statuses
        # The share bounds what the first user holds; expiry frees it a minute after each call.
        health = client.get("/api/v1/health", headers=as_user("10.0.0.9"))
        assert health.json()["problems"] == {}, health.text

        session = uuid.uuid4().hex
        body = {"data": ["", None, "", ""], "fn_index": show_index(client), "session_hash": session}
        joined = client.post("/gradio_api/queue/join", json=body, headers=as_user("10.0.0.2"))
        assert joined.status_code == 200, joined.text
        read = client.get(
            "/gradio_api/queue/data", params={"session_hash": session}, headers=as_user("10.0.0.2")
        )
        [done] = completed(read)
        assert done["success"], done
        again = client.get(
            "/gradio_api/queue/data",
            params={"session_hash": session},
            headers=as_user("10.0.0.2"),
            timeout=10,  # before the guard, this stream never ended
        )
        assert again.status_code == 404
        assert "already read" in again.json()["detail"]
    written = log.read_text()
    assert "KeyError" not in written
    assert "Traceback" not in written


def test_a_second_reader_is_refused_and_a_reader_leaving_logs_nothing(
    proxied_service: tuple[str, Path],
) -> None:
    url, log = proxied_service
    with httpx.Client(base_url=url, timeout=60) as client:
        show = show_index(client)
        # A share of calls from a third user, so that the next one waits in line.
        for _ in range(SHARE):
            backlog = {
                "data": ["", None, "", ""],
                "fn_index": show,
                "session_hash": uuid.uuid4().hex,
            }
            client.post("/gradio_api/queue/join", json=backlog, headers=as_user("10.0.0.3"))
        session = uuid.uuid4().hex
        body = {"data": ["", None, "", ""], "fn_index": show, "session_hash": session}
        joined = client.post("/gradio_api/queue/join", json=body, headers=as_user("10.0.0.4"))
        assert joined.status_code == 200, joined.text
        params = {"session_hash": session}
        with client.stream(
            "GET", "/gradio_api/queue/data", params=params, headers=as_user("10.0.0.4")
        ) as first:
            assert first.status_code == 200
            second = client.get(
                "/gradio_api/queue/data", params=params, headers=as_user("10.0.0.4"), timeout=10
            )
            assert second.status_code == 409, second.text
        # The first reader left before its result came: Gradio cleans the session up.
        after = client.get(
            "/gradio_api/queue/data", params=params, headers=as_user("10.0.0.4"), timeout=10
        )
        assert after.status_code == 404
    written = log.read_text()
    assert "KeyError" not in written
    assert "Traceback" not in written
