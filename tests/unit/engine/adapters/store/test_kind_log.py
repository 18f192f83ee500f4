"""The kind log: every store appends at a free seq only, reads in order, and counts kinds; two
replicas on one PostgreSQL database that create kinds at once agree on every decision's kind."""

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.adapters.store.sql import SqlStore
from engine.domain.kinds import KindEvent
from engine.errors import StoreError
from engine.orchestration.kind_book import KindBook, KindSettings
from tests.unit.engine.conftest import Directions


def created(seq: int, kind_id: str, anchor: tuple[float, ...] = (1.0, 0.0)) -> KindEvent:
    return KindEvent("default", seq, kind_id, "create", "discovered", None, anchor, f"q{seq}")


def test_an_event_is_appended_only_at_the_next_free_seq(store: Any) -> None:
    assert store.append_kind_event(created(1, "k1"))
    assert not store.append_kind_event(created(1, "k1b"))  # taken: the loser reads again
    assert not store.append_kind_event(created(3, "k3"))  # a gap: seq 2 is not there yet
    assert store.append_kind_event(created(2, "k2", (0.0, 1.0)))
    events = store.kind_events_since("default", 0)
    assert [(e.seq, e.kind_id, e.anchor) for e in events] == [
        (1, "k1", (1.0, 0.0)),
        (2, "k2", (0.0, 1.0)),
    ]
    assert store.kind_events_since("default", 1) == events[1:]
    assert store.kind_events_since("elsewhere", 0) == []


def test_decisions_are_counted_per_kind(store: Any, records: Any) -> None:
    store.append_kind_event(created(1, "k1"))
    for index, kind in enumerate(["k1", "k1", None]):
        store.save_decision(records.decision(f"d{index}", kind=kind, context=None))
    assert store.kind_sizes("default") == {"k1": 2}
    assert store.get_decision("d0").kind == "k1"


@pytest.mark.parametrize(
    "event",
    [
        KindEvent("default", 0, "k1", "create", "discovered", None, (1.0,), "q"),
        KindEvent("default", 1, "", "create", "discovered", None, (1.0,), "q"),
        KindEvent("default", 1, "k1", "create", "discovered", None, (float("nan"),), "q"),
        KindEvent("default", 1, "k1", "delete", "discovered", None, None, "q"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_event_is_refused_before_anything_is_written(store: Any, event: Any) -> None:
    with pytest.raises(StoreError):
        store.append_kind_event(event)
    assert store.kind_events_since("default", 0) == []


def book_on(store: Any) -> KindBook:
    return KindBook(
        log=store, namespace="default", embedder=Directions(), dimension=4, settings=KindSettings()
    )


@pytest.mark.postgres
def test_two_replicas_creating_kinds_at_once_agree_on_every_kind(postgres_url: str) -> None:
    queries = [f"{word} {n}" for n in range(12) for word in Directions.words]
    with SqlStore(postgres_url) as first_store, SqlStore(postgres_url) as second_store:
        replicas = [book_on(first_store), book_on(second_store)]

        def assign(replica: int) -> list[tuple[str, str]]:
            book = replicas[replica]
            return [(query, book.find(query).kind.kind_id) for query in queries]

        with ThreadPoolExecutor(2) as pool:
            first, second = pool.map(assign, [0, 1])
        # one kind per direction, whichever replica created it: the loser of each race joined
        assert {kind for _, kind in first} == {kind for _, kind in second}
        assert len({kind for _, kind in first}) == len(Directions.words)
        assert dict(first) == dict(second)
    with SqlStore(postgres_url) as third_store:
        restarted = book_on(third_store)
        assert [k.kind_id for k in restarted.kinds] == [k.kind_id for k in replicas[0].kinds]
        assert [k.anchor for k in restarted.kinds] == [k.anchor for k in replicas[1].kinds]


def test_a_replica_behind_the_log_reads_it_before_creating_a_kind() -> None:
    store = InMemoryStore()
    behind, ahead = book_on(store), book_on(store)
    made = ahead.find("capital of Peru").kind
    # `behind` reads the log before it matches, so it joins the kind rather than make one
    assert behind.find("capital of Chile").kind.kind_id == made.kind_id
    actions = [event.action for event in store.kind_events_since("default", 0)]
    assert actions == ["space", "create", "member"]  # the embedder, the kind, its 2nd member


def test_a_kind_log_that_skips_a_seq_is_refused(sqlite_store: SqlStore) -> None:
    class Skipping(InMemoryStore):
        def kind_events_since(self, namespace: str, after_seq: int) -> list[KindEvent]:
            return [created(2, "k2")] if after_seq == 0 else []

    with pytest.raises(StoreError, match="jumps from seq 0 to 2"):
        book_on(Skipping())
