"""Gradio's routes answer a malformed call with a 4xx that says what is wrong; good ones as before.

Every case here was a 500 (issue 27); `test_route_fuzz.py` sweeps every route more widely.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.unit.ui.conftest import scripted_engine
from ui.service.app import create_app

TOKEN = "gradio-calls-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
NOT_UTF8 = b"\xff\xfe\x80\x81 caf\xe9"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(scripted_engine(tmp_path_factory.mktemp("home")), token=TOKEN)
    with TestClient(app, base_url="http://localhost", headers=BEARER) as test_client:
        yield test_client


def detail(answer: Any) -> str:
    return str(answer.json()["detail"])


@pytest.mark.parametrize(
    "path",
    [
        "/gradio_api/call/show",
        "/gradio_api/queue/join",
        "/gradio_api/run/show",
        "/gradio_api/api/show",
        "/gradio_api/call/v2/show",
        "/gradio_api/cancel",
        "/gradio_api/reset",
        "/gradio_api/stream/some-event",
        "/gradio_api/vibe-edit",
        "/gradio_api/component_server",
    ],
)
@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", None, "text/html"]
)
def test_a_body_that_is_not_utf8_is_a_422(
    client: TestClient, path: str, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    answer = client.post(path, content=NOT_UTF8, headers=headers)
    assert 400 <= answer.status_code < 500, answer.text


def test_call_may_leave_out_the_inputs_its_api_hides(client: TestClient) -> None:
    # the chosen arm is a state: Gradio fills it in, so the query, the kind and the model are a
    # whole call
    answer = client.post("/gradio_api/call/show", json={"data": ["", "", ""]})
    assert answer.status_code == 200


def test_call_v2_without_the_required_argument_names_it(client: TestClient) -> None:
    answer = client.post("/gradio_api/call/v2/show", json={})
    assert answer.status_code == 422
    assert "No value provided for required argument: text" in detail(answer)
    unknown = client.post("/gradio_api/call/v2/show", json={"text": "", "colour": "red"})
    assert (unknown.status_code, "colour" in detail(unknown)) == (422, True)
    nowhere = client.post("/gradio_api/call/v2/no-such-endpoint", json={"text": ""})
    assert nowhere.status_code == 404


@pytest.mark.parametrize("route", ["run", "api", "call"])
@pytest.mark.parametrize("data", [[], [""]])
def test_too_few_inputs_are_a_422_that_counts_them(
    client: TestClient, route: str, data: list[Any]
) -> None:
    answer = client.post(f"/gradio_api/{route}/show", json={"data": data})
    assert answer.status_code == 422, answer.text
    assert "show takes 4 inputs" in detail(answer)
    assert f"got {len(data)}" in detail(answer)


@pytest.mark.parametrize("fn_index", [-1, 2**64, 9999])
def test_queue_join_with_a_function_index_that_names_nothing_is_a_422(
    client: TestClient, fn_index: int
) -> None:
    body = {"data": ["", None], "fn_index": fn_index, "session_hash": "s1"}
    answer = client.post("/gradio_api/queue/join", json=body)
    assert answer.status_code == 422
    assert f"fn_index {fn_index} names no function" in detail(answer)
    run = client.post("/gradio_api/run/show", json=body)  # the index wins over the name there
    assert run.status_code == 422


def test_an_empty_session_is_a_422(client: TestClient) -> None:
    show = next(i for i, fn in client.app.state.playground.fns.items() if fn.api_name == "show")  # type: ignore[attr-defined]
    body = {"data": ["", None], "fn_index": show, "session_hash": ""}
    answer = client.post("/gradio_api/queue/join", json=body)
    assert answer.status_code == 422
    assert "session_hash is empty" in detail(answer)
    call = client.post("/gradio_api/call/show", json={"data": ["", None], "session_hash": ""})
    assert call.status_code == 422


def test_an_unknown_endpoint_or_page_is_a_404(client: TestClient) -> None:
    for route in ("run", "api", "call"):
        answer = client.post(f"/gradio_api/{route}/no-such-endpoint", json={"data": []})
        assert answer.status_code == 404, route
        assert "no endpoint named 'no-such-endpoint'" in detail(answer)
    assert client.get("/?page=no-such-page").status_code == 404
    assert client.get("/?page=").status_code == 200  # the home page, by its own name


def test_well_formed_calls_are_answered_as_before(client: TestClient) -> None:
    show = next(i for i, fn in client.app.state.playground.fns.items() if fn.api_name == "show")  # type: ignore[attr-defined]
    joined = client.post(
        "/gradio_api/queue/join",
        json={
            "data": ["", None, "", ""],
            "fn_index": show,
            "session_hash": "s2",
            "trigger_id": None,
        },
    )
    assert joined.status_code == 200
    assert joined.json()["event_id"]
    named = client.post("/gradio_api/call/v2/show", json={"text": "", "kind": "", "model": ""})
    assert named.status_code == 200
    result = client.get(f"/gradio_api/call/show/{named.json()['event_id']}")
    assert "event: complete" in result.text
    listed = client.post("/gradio_api/call/listing", json={"data": []}).json()["event_id"]
    assert (
        '"headers": ["id", "name", "description", "added"]'
        in client.get(f"/gradio_api/call/listing/{listed}").text
    )


def test_direct_calls_do_not_skip_the_queue(client: TestClient) -> None:
    """`run/` skipped the queue and answered a value outside a dropdown's choices with a 500."""
    bad_kind = client.post("/gradio_api/run/ask", json={"data": ["What is 2+2?", "", "bogus", ""]})
    assert bad_kind.status_code == 404
    assert "join the queue" in detail(bad_kind)
    # Through the queue the same mistake is the call's own error event, not a server error.
    joined = client.post("/gradio_api/call/ask", json={"data": ["What is 2+2?", "", "bogus", ""]})
    assert joined.status_code == 200
    events = client.get(f"/gradio_api/call/ask/{joined.json()['event_id']}").text
    assert "event: error" in events
    # The steps that never queue (locking the page while it asks) still answer directly.
    assert client.post("/gradio_api/run/lock", json={"data": []}).status_code == 200


def test_a_stream_of_nothing_is_a_404_before_it_starts(client: TestClient) -> None:
    """Gradio answered 200, then broke the stream off with an exception."""
    for path in (
        "/gradio_api/queue/data?session_hash=no-such-session",
        "/gradio_api/queue/data?session_hash=",
        "/gradio_api/call/show/no-such-event",
        "/gradio_api/call/v2/show/no-such-event",
    ):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "no such session or event" in detail(answer)
