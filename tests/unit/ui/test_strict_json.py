"""Malformed numbers and text are a 422 that says what is wrong, never a 500, and store nothing."""

import asyncio
import json

import pytest
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient

from ui.service.strict_json import InvalidJsonError, check_json, validation_error


def post_raw(client: TestClient, path: str, body: str) -> tuple[int, str]:
    response = client.post(
        path,
        content=body.encode("utf-8", "surrogatepass"),
        headers={"content-type": "application/json"},
    )
    return response.status_code, response.text


def new_decision(client: TestClient) -> str:
    decision_id: str = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?"}).json()[
        "id"
    ]
    return decision_id


@pytest.mark.parametrize(
    ("reward", "fragment"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e400", "1e400 is out of range"),
        ("1" * 400, "out of range"),
        ('"0.5"', "reward must be a JSON number in [0, 1], not a string"),
        ("true", "reward must be a JSON number in [0, 1], not true/false"),
        ("null", "valid number"),
        ("[0.5]", "not list"),
        ("1.5", "less than or equal to 1"),
        ("-0.1", "greater than or equal to 0"),
    ],
)
def test_a_reward_must_be_a_finite_json_number_in_range(
    client: TestClient, reward: str, fragment: str
) -> None:
    decision_id = new_decision(client)
    before = client.get(f"/api/v1/decisions/{decision_id}").json()["outcomes"]
    status, text = post_raw(
        client,
        f"/api/v1/decisions/{decision_id}/outcomes",
        f'{{"source": "user", "reward": {reward}}}',
    )
    assert status == 422, text
    assert fragment in text
    assert client.get(f"/api/v1/decisions/{decision_id}").json()["outcomes"] == before


@pytest.mark.parametrize("reward", ["0", "1", "0.5", "1e-3"])
def test_a_json_number_in_range_is_accepted(client: TestClient, reward: str) -> None:
    decision_id = new_decision(client)
    status, text = post_raw(
        client,
        f"/api/v1/decisions/{decision_id}/outcomes",
        f'{{"source": "user", "reward": {reward}}}',
    )
    assert status == 201, text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/decisions", '{"query": "What is \\ud800 + 1?"}'),
        (
            "/api/v1/decisions",
            '{"query": "ok", "expected_answer": "\\udfff", "answer_kind": "exact"}',
        ),
        (
            "/api/v1/templates",
            '{"id": "x", "name": "\\ud800", "description": "d", "prompt": "{query}"}',
        ),
        ("/api/v1/templates", '{"\\ud800": 1}'),
    ],
)
def test_a_lone_surrogate_is_a_422_naming_it(client: TestClient, path: str, body: str) -> None:
    status, text = post_raw(client, path, body)
    assert status == 422, text
    assert "lone surrogate" in text


def test_invalid_utf8_is_a_422(client: TestClient) -> None:
    response = client.post(
        "/api/v1/decisions",
        content=b'{"query": "\xff"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert "not UTF-8" in response.text


def test_check_json_reads_strict_json_only() -> None:
    assert check_json(b'{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    with pytest.raises(InvalidJsonError, match="not valid JSON"):
        check_json(b"{")


def test_the_422_handler_leaves_out_inputs_it_cannot_write() -> None:
    error = RequestValidationError(
        [
            {"type": "x", "loc": ("body", "reward"), "msg": "bad", "input": float("nan")},
            {"type": "y", "loc": ("body", "query"), "msg": "bad", "input": "\ud800"},
            {"type": "z", "loc": ("body", "ok"), "msg": "bad", "input": "fine"},
        ]
    )
    # A loop of its own, not asyncio.run: that would leave "no current loop" set for later tests.
    loop = asyncio.new_event_loop()
    try:
        response = loop.run_until_complete(validation_error(None, error))  # type: ignore[arg-type]
    finally:
        loop.close()
    detail = json.loads(bytes(response.body))["detail"]
    assert response.status_code == 422
    assert ["input" in item for item in detail] == [False, False, True]
    assert detail[2]["input"] == "fine"
