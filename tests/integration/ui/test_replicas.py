"""Three `thinkpath serve` replicas on one PostgreSQL schema learn together and survive a kill."""

import os
from typing import Any

import httpx
import pytest

from engine.adapters.store.sandbox import temporary_schema
from experiments.benchmarks.replicas import (
    DEFAULT_POSTGRES,
    check_after_kill,
    replicas,
    run_load,
)

POSTGRES_URL = os.environ.get("THINKPATH_TEST_POSTGRES_URL", DEFAULT_POSTGRES)

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def arm_row(http: httpx.Client, url: str, arm: str) -> dict[str, Any]:
    arms = http.get(f"{url}/api/v1/arms").json()
    row: dict[str, Any] = next(a for a in arms if (a["role"], a["arm_id"]) == ("path", arm))
    return row


def test_replicas_learn_from_each_other_and_survive_a_kill() -> None:
    with (
        temporary_schema(POSTGRES_URL, prefix="scale_replicas") as store_url,
        replicas(store_url, 3) as (first, second, third),
        httpx.Client(timeout=60.0) as http,
    ):
        question = {"query": "What is 2 + 3?", "expected_answer": "5", "answer_kind": "numeric"}
        # No checker, and the referee was never measured on such questions: nothing scores it
        # until a user does.
        decided = http.post(f"{first.url}/api/v1/decisions", json={"query": "What is 2 + 3?"})
        assert decided.status_code == 201
        decision: dict[str, Any] = decided.json()
        arm = decision["path"]["arm_id"]
        assert decision["outcomes"] == []
        # a user reward posted to the second replica...
        posted = http.post(
            f"{second.url}/api/v1/decisions/{decision['id']}/outcomes",
            json={"source": "user", "reward": 1.0},
        )
        assert posted.status_code == 201
        # ...is learned by the third at its next refresh (posting it again changes nothing and
        # makes the replica refresh).
        again = http.post(
            f"{third.url}/api/v1/decisions/{decision['id']}/outcomes",
            json={"source": "user", "reward": 1.0},
        )
        assert again.json()["applied"] is False
        row = arm_row(http, third.url, arm)
        assert (row["outcomes"], row["pulls"], row["mean_reward"]) == (1, 1.0, 1.0)

        load = run_load([first, second, third], clients=4, seconds=8.0, kill=third)
        assert third.process.returncode == -9
        assert load.errors == []
        assert load.decisions > 0
        report = check_after_kill(store_url, [first, second], load)
        assert report["lost_outcomes"] == 0
        assert report["survivors_agree_with_store"], report["disagreements"]
        for survivor in (first, second):  # the others keep serving
            assert http.post(f"{survivor.url}/api/v1/decisions", json=question).status_code == 201
