"""The REST API over a scripted engine: the happy path and every kind of bad input."""

import pytest
from fastapi.testclient import TestClient

from engine.errors import TemplateError
from engine.orchestration.facade import Engine

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
    # The expected answer is the client's claim: its check is the client's own score.
    assert decision["outcomes"] == [
        {**decision["outcomes"][0], "source": "user", "reward": 1.0, "revision": 0}
    ]
    assert decision["path"]["propensity"] > 0

    url = f"/api/v1/decisions/{decision['id']}/outcomes"
    scored = client.post(url, json={"source": "user:ann", "reward": 0.0})
    assert scored.status_code == 201
    assert scored.json()["applied"] is True
    again = client.post(url, json={"source": "user:ann", "reward": 0.0})
    assert again.json()["applied"] is False
    assert again.json()["seq"] == scored.json()["seq"]

    read = client.get(f"/api/v1/decisions/{decision['id']}")
    assert read.status_code == 200
    assert read.json()["trace"] == decision["trace"]

    arms = {(a["role"], a["arm_id"]): a for a in client.get("/api/v1/arms").json()}
    chosen = arms[("path", decision["path"]["arm_id"])]
    # One decision, one piece of evidence: between two users, the first to score stays.
    assert chosen["outcomes"] == 1
    assert chosen["mean_reward"] == 1.0


def test_a_wrong_expected_answer_is_corrected_by_the_client_that_gave_it(
    client: TestClient,
) -> None:
    created = client.post(
        "/api/v1/decisions",
        json={
            "query": "What is 6 * 7?",
            "expected_answer": "43",
            "answer_kind": "numeric",
            "source": "User:Ann",
        },
    ).json()
    assert [(o["source"], o["reward"]) for o in created["outcomes"]] == [("user:ann", 0.0)]
    check = next(step for step in created["trace"] if step["stage"] == "checker")
    assert check["outputs"]["set_by"] == "user:ann"
    url = f"/api/v1/decisions/{created['id']}/outcomes"
    plain = client.post(url, json={"source": "user:ann", "reward": 1.0})
    assert plain.status_code == 409
    assert "replace=True" in plain.json()["detail"]
    fixed = client.post(url, json={"source": "user:ann", "reward": 1.0, "replace": True})
    assert (fixed.status_code, fixed.json()["revision"]) == (201, 1)
    arm = created["path"]["arm_id"]
    row = next(a for a in client.get("/api/v1/arms").json() if a["arm_id"] == arm)
    assert (row["pulls"], row["mean_reward"], row["outcomes"]) == (1.0, 1.0, 1)


def test_a_full_history_is_a_409_that_says_why_and_keeps_what_stood(
    client: TestClient, engine: Engine
) -> None:
    decision = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?"}).json()
    url = f"/api/v1/decisions/{decision['id']}/outcomes"
    sources = [f"user:u{n}" for n in range(engine.config.max_outcome_sources)]
    for source in sources:
        assert client.post(url, json={"source": source, "reward": 1.0}).status_code == 201
    full = client.post(url, json={"source": "user:late", "reward": 0.0})
    assert full.status_code == 409
    assert "THINKPATH_MAX_OUTCOME_SOURCES" in full.json()["detail"]
    for reward in [0.0, 1.0] * engine.config.max_outcome_revisions:
        last = client.post(url, json={"source": "user:u0", "reward": reward, "replace": True})
    assert last.status_code == 409
    assert "THINKPATH_MAX_OUTCOME_REVISIONS" in last.json()["detail"]
    outcomes = client.get(f"/api/v1/decisions/{decision['id']}").json()["outcomes"]
    assert {o["source"] for o in outcomes} == set(sources)
    assert len(outcomes) == len(sources) + engine.config.max_outcome_revisions - 1


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
        ("/api/v1/decisions", {"query": "x", "source": "user"}, 422, "give expected_answer"),
        (
            "/api/v1/decisions",
            {"query": "x", "expected_answer": "4", "answer_kind": "numeric", "source": "checker"},
            422,
            "is reserved",
        ),
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


def decide(client: TestClient, query: str = "What is 6 * 7?") -> str:
    created = client.post("/api/v1/decisions", json={"query": query})
    assert created.status_code == 201, created.text
    decision_id: str = created.json()["id"]
    return decision_id


def test_a_decision_read_back_shows_outcomes_recorded_later(client: TestClient) -> None:
    created = client.post("/api/v1/decisions", json={"query": "What is 6 * 7?"}).json()
    # no checker, and the referee was never measured on such questions: nothing scored it yet
    assert created["outcomes"] == []
    url = f"/api/v1/decisions/{created['id']}/outcomes"
    for source, reward in (("user", 1), ("user:ann", 0.5)):
        assert client.post(url, json={"source": source, "reward": reward}).status_code == 201
    outcomes = client.get(f"/api/v1/decisions/{created['id']}").json()["outcomes"]
    assert [(o["source"], o["reward"]) for o in outcomes] == [("user", 1.0), ("user:ann", 0.5)]
    assert outcomes[0]["seq"] < outcomes[1]["seq"]
    assert outcomes[0]["weight"] == 1.0  # a user's default weight, as stored


def path_arm(client: TestClient, arm_id: str) -> dict[str, object]:
    arms = client.get("/api/v1/arms").json()
    found: dict[str, object] = next(
        a for a in arms if a["role"] == "path" and a["arm_id"] == arm_id
    )
    return found


def test_a_retired_template_is_no_longer_chosen_and_keeps_its_record(
    client: TestClient,
) -> None:
    decision_id = decide(client)
    chosen = client.get(f"/api/v1/decisions/{decision_id}").json()["path"]["arm_id"]
    client.post(f"/api/v1/decisions/{decision_id}/outcomes", json={"source": "user", "reward": 1})
    before = path_arm(client, chosen)
    retired = client.post(f"/api/v1/templates/{chosen}/retire", json={"reason": "too wordy"})
    assert retired.status_code == 200, retired.text
    assert retired.json()["retired"] is True
    assert retired.json()["retired_reason"] == "too wordy"
    after = path_arm(client, chosen)
    assert after["outcomes"] == before["outcomes"] == 1  # the user's
    assert after["pulls"] == before["pulls"]
    for n in range(6):
        later = client.get(f"/api/v1/decisions/{decide(client, f'What is {n} + 4?')}").json()
        assert later["path"]["arm_id"] != chosen
        assert chosen not in {c["arm_id"] for c in later["candidates"]}
    # the old decision and its outcome still read back
    old = client.get(f"/api/v1/decisions/{decision_id}").json()["outcomes"]
    assert [o["source"] for o in old] == ["user"]
    again = client.post(f"/api/v1/templates/{chosen}/retire", json={"reason": "again"})
    assert again.status_code == 200
    assert again.json()["retired_reason"] == "too wordy"  # retiring twice changes nothing


@pytest.mark.parametrize(
    ("arm_id", "body", "status", "fragment"),
    [
        ("no-such-template", {"reason": "x"}, 404, "no template"),
        ("first_principles", {"reason": ""}, 422, "reason"),
        ("first_principles", {}, 422, "reason"),
        ("bad id!", {"reason": "x"}, 422, "arm_id"),
        ("first_principles", {"reason": "too \u202ewordy"}, 422, "U+202E"),  # bidi override
        ("first_principles", {"reason": "ok\u200b"}, 422, "U+200B"),  # zero-width space
        ("first_principles", {"reason": "ok\U000e0069"}, 422, "U+E0069"),  # tag character
    ],
)
def test_retiring_needs_a_known_template_and_a_reason(
    client: TestClient, arm_id: str, body: object, status: int, fragment: str
) -> None:
    response = client.post(f"/api/v1/templates/{arm_id}/retire", json=body)
    assert response.status_code == status, response.text
    assert fragment in response.text


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"id": "count_on_fingers"}, "too close to"),  # '-' and '_' read alike
        ({"id": " Count-On-Fingers "}, "exists already"),  # case and spaces are normalised
        ({"id": "first-principles"}, "first_principles"),  # a near-duplicate of a built-in
        ({"id": "other", "name": "Count\u200bon fingers"}, "U+200B"),  # zero-width space
        ({"id": "other", "name": "\u202eCount on fingers"}, "U+202E"),  # bidi override
        ({"id": "other", "description": "a\u2066b"}, "U+2066"),
        ({"id": "other", "prompt": "{query}\u202e"}, "U+202E"),
        ({"id": "other"}, "reads like that of the path 'count-on-fingers'"),  # the same name
        ({"id": "other", "name": "count  ON fingers "}, "reads like"),  # case and spacing
        ({"id": "other", "name": "FIRST principles"}, "'first_principles'"),  # a built-in's
        ({"id": "other", "name": "C\u043eunt on fingers"}, "printable ASCII"),  # Cyrillic о
    ],
)
def test_near_duplicate_ids_and_hidden_characters_are_refused(
    client: TestClient, change: dict[str, str], fragment: str
) -> None:
    assert client.post("/api/v1/templates", json=NEW_TEMPLATE).status_code == 201
    response = client.post("/api/v1/templates", json={**NEW_TEMPLATE, **change})
    assert response.status_code == 422, response.text
    assert fragment in response.text


@pytest.mark.parametrize("source", ["checker", "Tool", " referee "])
def test_the_engines_own_sources_are_refused_with_422(client: TestClient, source: str) -> None:
    decision = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?"}).json()
    url = f"/api/v1/decisions/{decision['id']}/outcomes"
    refused = client.post(url, json={"source": source, "reward": 1.0})
    assert refused.status_code == 422
    assert "is reserved" in refused.json()["detail"]
    bogus = client.post(url, json={"source": "bogus", "reward": 1.0})
    assert bogus.status_code == 422
    assert "user:<name>" in bogus.json()["detail"]
    outcomes = client.get(f"/api/v1/decisions/{decision['id']}").json()["outcomes"]
    assert outcomes == []  # nothing recorded: the referee was not asked, the posts refused


def test_a_user_corrects_their_score_with_replace(client: TestClient) -> None:
    decision = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?"}).json()
    url = f"/api/v1/decisions/{decision['id']}/outcomes"
    first = client.post(url, json={"source": " User ", "reward": 0.0})
    assert (first.status_code, first.json()["source"]) == (201, "user")
    assert client.post(url, json={"source": "user", "reward": 1.0}).status_code == 409
    corrected = client.post(url, json={"source": "user", "reward": 1.0, "replace": True})
    assert corrected.status_code == 201
    assert (corrected.json()["revision"], corrected.json()["applied"]) == (1, True)
    arm = decision["path"]["arm_id"]
    row = next(a for a in client.get("/api/v1/arms").json() if a["arm_id"] == arm)
    assert (row["pulls"], row["mean_reward"], row["outcomes"]) == (1.0, 1.0, 1)
    assert (
        client.post(url, json={"source": "user", "reward": 1.0, "replace": "yes"}).status_code
        == 422
    )


@pytest.mark.parametrize("reason", ["too \u202ewordy", "fine\u2066", "x\U000e0041"])
def test_a_hidden_character_in_a_retire_reason_is_refused_by_the_engine_too(
    engine: Engine, reason: str
) -> None:
    # The playground retires through the engine, not the API: the engine refuses it as well.
    with pytest.raises(TemplateError, match="hides or reorders"):
        engine.retire_template("first_principles", reason)
    row = next(r for r in engine.arms() if r.arm_id == "first_principles")
    assert not row.retired


def test_a_named_task_is_a_kind_of_its_own_and_kinds_can_be_listed_and_named(
    client: TestClient,
) -> None:
    made = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?", "task": "sums"})
    assert made.status_code == 201, made.text
    assert made.json()["kind"]["id"] == "task:sums"
    bad = client.post("/api/v1/decisions", json={"query": "What is 2 + 2?", "task": "Not A Slug"})
    assert bad.status_code == 422
    assert "not a slug" in bad.json()["detail"]
    unnamed = client.post("/api/v1/decisions", json={"query": "Who wrote Hamlet?"}).json()
    kinds = client.get("/api/v1/kinds").json()
    assert {row["kind"] for row in kinds} >= {"task:sums", unnamed["kind"]["id"]}
    named = client.post(f"/api/v1/kinds/{unnamed['kind']['id']}/name", json={"name": "authors"})
    assert (named.status_code, named.json()["name"]) == (200, "authors")
    again = client.post("/api/v1/decisions", json={"query": "Who wrote Faust?", "task": "authors"})
    assert again.json()["kind"]["id"] == unnamed["kind"]["id"]
    assert client.post("/api/v1/kinds/k999/name", json={"name": "x"}).status_code == 404
    arms = client.get("/api/v1/arms", params={"kind": "task:sums"}).json()
    assert all(row["prob_best"] is not None for row in arms if not row["retired"])


def test_options_a_client_gives_bound_the_answer_and_bad_ones_are_refused(
    client: TestClient,
) -> None:
    body = {"query": "Route this ticket: charged twice", "options": ["billing", "technical"]}
    made = client.post("/api/v1/decisions", json=body)
    assert made.status_code == 201, made.text
    assert made.json()["answer"] in ("billing", "technical")
    one = client.post("/api/v1/decisions", json={**body, "options": ["billing"]})
    assert one.status_code == 422
    twice = client.post("/api/v1/decisions", json={**body, "options": ["Billing", "billing"]})
    assert twice.status_code == 400
    assert "repeats option 1" in twice.json()["detail"]
