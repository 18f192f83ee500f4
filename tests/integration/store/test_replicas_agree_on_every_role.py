"""Two replicas on one store agree on every learned role once each has seen the other's outcomes.

Path, tool, seed and the referee's reliability are all replayed from the shared outcome log, so
two engines that decide, score and correct through one PostgreSQL (or SQLite) store hold the same
state after a refresh, and a third one started afterwards holds it too.
"""

from pathlib import Path

import pytest

from engine.adapters.store.sql import SqlStore
from tests.unit.engine.conftest import World
from tests.unit.engine.test_one_book import busy_history, config, learned_state

QUERIES = ["What is the sum 3 + 4?", "What is the first letter of apple?"]


def check_replicas_agree(world: World, url: str) -> None:
    with SqlStore(url) as first_store, SqlStore(url) as second_store:
        first = world.engine(config=config(checkpoint_every=7), store=first_store)
        second = world.engine(config=config(checkpoint_every=7), store=second_store)
        busy_history(world, first, second)  # decisions, users' scores, corrections, both ways
        state = learned_state(first)
        assert state["last_seq"] > 16
        assert state["audits"]
        assert {role for role, _arm, *_ in state["tallies"]} == {"path", "tool", "seed", "model"}
        assert learned_state(second) == state
        assert second.snapshot() == first.snapshot()
        for query in QUERIES:
            assert second.arms(query) == first.arms(query)
        for query in QUERIES:  # the referee's weight for each kind of query, as each measures it
            reliabilities = [
                engine.decide(query).step("referee").outputs["reliability"]
                for engine in (first, second)
            ]
            assert reliabilities[0] == reliabilities[1]
            assert reliabilities[0]["basis"] != "prior"
        first.refresh()
        second.refresh()
        assert learned_state(second) == learned_state(first)
    with SqlStore(url) as third_store:
        third = world.engine(config=config(checkpoint_every=7), store=third_store)
        assert learned_state(third) == learned_state(first)


@pytest.mark.postgres
def test_two_replicas_on_postgresql_agree_on_every_role(postgres_url: str) -> None:
    check_replicas_agree(World(), postgres_url)


def test_two_replicas_on_sqlite_agree_on_every_role(tmp_path: Path) -> None:
    check_replicas_agree(World(), f"sqlite:///{tmp_path / 'shared.sqlite3'}")
