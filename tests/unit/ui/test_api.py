"""The REST API over a scripted engine: the happy path and every kind of bad input."""

import pytest
from fastapi.testclient import TestClient

from engine.core.facade import Engine
from ui.service.api import create_api

NEW_TEMPLATE = {
    "id": "count-on-fingers",
    "name": "Count on fingers",
    "description": "Count up one at a time.",
    "prompt": "Count up one step at a time.\n{query}\nEnd with a line 'Answer: <answer>'.",
    "tags": ["arithmetic"],
}


def test_decide_then_score_then_read_back(client: TestClient) -> None:
    created = client.post(
        "/api/v1/decisions",
        json={"query": "What is 6 * 7?", "expected_answer": "42", "answer_kind": "numeric"},
    )
    assert created.status_code == 201, created.text
    decision = created.json()
    assert decision["answer"].endswith("Answer: 42")
    assert [o["source"] for o in decision["outcomes"]] == ["checker"]
    assert decision["outcomes"][0]["reward"] == 1.0
    assert decision["path"]["propensity"] > 0

    scored = client.post(
        f"/api/v1/decisions/{decision['id']}/outcomes", json={"source": "user", "reward": 0.0}
    )
    assert scored.status_code == 201
    assert scored.json()["applied"] is True
    again = client.post(
        f"/api/v1/decisions/{decision['id']}/outcomes", json={"source": "user", "reward": 0.0}
    )
    assert again.json()["applied"] is False
    assert again.json()["seq"] == scored.json()["seq"]

    read = client.get(f"/api/v1/decisions/{decision['id']}")
    assert read.status_code == 200
    assert read.json()["trace"] == decision["trace"]

    arms = {(a["role"], a["arm_id"]): a for a in client.get("/api/v1/arms").json()}
    chosen = arms[("path", decision["path"]["arm_id"])]
    assert chosen["outcomes"] == 2  # the checker's and the user's
    assert chosen["mean_reward"] == pytest.approx(0.5)


def test_conflicting_outcome_is_409_and_nothing_changes(client: TestClient) -> None:
    decision = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?"}).json()
    url = f"/api/v1/decisions/{decision['id']}/outcomes"
    assert client.post(url, json={"source": "user", "reward": 1.0}).status_code == 201
    conflict = client.post(url, json={"source": "user", "reward": 0.0})
    assert conflict.status_code == 409
    assert "already has a 'user' outcome" in conflict.json()["detail"]


@pytest.mark.parametrize(
    ("path", "body", "status", "fragment"),
    [
        ("/api/v1/decisions", {"query": ""}, 422, "query"),
        ("/api/v1/decisions", {"query": 5}, 422, "query"),
        ("/api/v1/decisions", {"query": "x", "extra": 1}, 422, "extra"),
        ("/api/v1/decisions", {"query": "x", "expected_answer": "4"}, 422, "together"),
        (
            "/api/v1/decisions",
            {"query": "x", "expected_answer": "soon", "answer_kind": "date"},
            422,
            "expected_answer",
        ),
        ("/api/v1/decisions/nope/outcomes", {"source": "user", "reward": 1.0}, 404, "nope"),
        ("/api/v1/decisions/nope/outcomes", {"source": "user", "reward": 1.5}, 422, "reward"),
        ("/api/v1/templates", {**NEW_TEMPLATE, "prompt": "{nope}"}, 422, "placeholder"),
    ],
)
def test_bad_input_is_a_4xx_that_names_the_problem(
    client: TestClient, path: str, body: object, status: int, fragment: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == status, response.text
    assert fragment in response.text


def test_malformed_json_and_unknown_decision(client: TestClient) -> None:
    broken = client.post(
        "/api/v1/decisions", content=b'{"query": ', headers={"content-type": "application/json"}
    )
    assert broken.status_code == 422
    assert "JSON" in broken.text
    assert client.get("/api/v1/decisions/does-not-exist").status_code == 404


def test_templates_are_listed_and_added_once(client: TestClient) -> None:
    before = client.get("/api/v1/templates").json()
    assert len(before) >= 10
    added = client.post("/api/v1/templates", json=NEW_TEMPLATE)
    assert added.status_code == 201, added.text
    assert added.json()["arm_id"] == "count-on-fingers"
    assert len(client.get("/api/v1/templates").json()) == len(before) + 1
    duplicate = client.post("/api/v1/templates", json=NEW_TEMPLATE)
    assert duplicate.status_code == 422
    assert "exists already" in duplicate.json()["detail"]
    arms = {a["arm_id"] for a in client.get("/api/v1/arms").json() if a["role"] == "path"}
    assert "count-on-fingers" in arms


def test_health_and_openapi(client: TestClient) -> None:
    health = client.get("/api/v1/health").json()
    assert health["status"] == "ok"
    assert health["arms"] > 10
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/v1/decisions/{decision_id}/outcomes" in paths


def test_token_guards_every_api_call(engine: Engine) -> None:
    client = TestClient(create_api(engine, token="t0ken"))
    assert client.get("/api/v1/health").status_code == 401
    assert client.post("/api/v1/decisions", json={"query": "hi"}).status_code == 401
    ok = client.get("/api/v1/health", headers={"Authorization": "Bearer t0ken"})
    assert ok.status_code == 200
    assert "t0ken" not in ok.text
