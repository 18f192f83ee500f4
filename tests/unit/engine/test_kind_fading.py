"""Kinds that stay tiny fade: at the bound, a new kind of query takes the slot of the stalest tiny
kind, by a "fade" event that every process reads alike (`engine.domain.kinds.fading_kind`)."""

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.domain.kinds import KindEvent
from engine.errors import InvalidKindError
from engine.orchestration.kind_book import KindBook, KindSettings
from tests.unit.engine.conftest import World


class OneHot:
    """An embedding double: a query's first word "w<n>" is the n-th of 16 orthogonal directions."""

    model_id = "one-hot"
    dimension = 16
    kind_threshold = 0.45

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row, int(text.split()[0][1:])] = 1.0
        return rows


def book(store: Any = None, **settings: Any) -> KindBook:
    return KindBook(
        log=store or InMemoryStore(),
        namespace="default",
        embedder=OneHot(),
        dimension=OneHot.dimension,
        settings=KindSettings(**{"max_kinds": 2, "fade_after": 3, **settings}),
    )


def full_table(kinds: KindBook) -> None:
    """Two kinds at the bound of 2: k1 got one query (seq 2), k2 three (seqs 3, 4, 5)."""
    kinds.find("w0 first")
    for n in range(3):
        kinds.find(f"w1 query {n}")


def test_at_the_bound_the_stalest_tiny_kind_fades_and_a_new_kind_takes_its_slot() -> None:
    store = InMemoryStore()
    kinds = book(store)
    full_table(kinds)
    # Without fading the new query would join a kind it has nothing in common with.
    match = kinds.find("w2 something new")
    assert (match.kind.kind_id, match.new) == ("k6", True)  # seq 6 is the fade, 7 the kind
    assert "kind k1 (1 query, the last at kind log seq 2) stayed tiny and faded" in match.why
    events = store.kind_events_since("default", 5)
    assert [(e.seq, e.action, e.kind_id) for e in events] == [
        (6, "fade", "k1"),
        (7, "create", "k6"),
    ]
    faded = kinds.kind("k1")
    assert faded.faded
    assert kinds.context_of("k1") == faded.anchor  # its decisions still learn where they did
    assert [(k.kind_id, k.faded) for k in kinds.kinds] == [
        ("k1", True),
        ("k2", False),
        ("k6", False),
    ]
    again = kinds.find("w0 first again")  # no longer joins the faded kind; k6 is too new to fade
    assert again.kind.kind_id in ("k2", "k6")
    assert "none may fade: joined the nearest" in again.why


def test_a_kind_that_grew_was_named_or_was_queried_lately_does_not_fade() -> None:
    grown = book(fade_after=1)
    for n in range(3):
        grown.find(f"w0 query {n}")
        grown.find(f"w1 query {n}")
    assert not grown.find("w2 new").new  # both kinds hold three queries: neither is tiny
    named = book()
    full_table(named)
    named.rename("k1", "rare-task")
    assert not named.find("w2 new").new
    recent = book(fade_after=4)
    full_table(recent)  # k1's query is 3 events old, fewer than 4
    assert not recent.find("w2 new").new
    assert not any(kind.faded for books in (grown, named, recent) for kind in books.kinds)


def test_at_most_max_faded_kinds_fade_then_a_query_joins_its_nearest() -> None:
    kinds = book(max_kinds=1, fade_after=0, max_faded=2)
    kinds.find("w0 a")
    assert kinds.find("w1 b").new  # k1 faded
    assert kinds.find("w2 c").new  # the second fade
    joined = kinds.find("w3 d")
    assert not joined.new
    assert sum(kind.faded for kind in kinds.kinds) == 2
    assert not book(kinds._log, max_kinds=1, fade_after=0, max_faded=2).find("w4 e").new


def test_peek_gives_the_anchor_a_query_that_makes_a_kind_fade_then_gets() -> None:
    kinds = book()
    full_table(kinds)
    seen = kinds.peek("w2 something new")
    assert seen not in {kind.anchor for kind in kinds.kinds}  # not joined: a kind to come
    assert not any(kind.faded for kind in kinds.kinds)  # peeking made nothing fade
    assert seen == kinds.find("w2 something new").kind.anchor


def test_a_faded_kind_cannot_be_named_and_a_stray_event_for_it_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = InMemoryStore()
    kinds = book(store)
    full_table(kinds)
    kinds.find("w2 new")
    with pytest.raises(InvalidKindError, match="'k1' faded"):
        kinds.rename("k1", "revived")
    stray = KindEvent("default", 8, "k1", "member", "discovered", None, (1.0,) + (0.0,) * 15)
    assert store.append_kind_event(stray)  # as no writer of this version appends
    with caplog.at_level(logging.WARNING, logger="engine.orchestration.kind_book"):
        restarted = book(store)
    assert "seq 8 (member) names kind 'k1', which no query may join" in caplog.text
    assert [(k.kind_id, k.faded) for k in restarted.kinds] == [
        (k.kind_id, k.faded) for k in kinds.kinds
    ]


def test_a_restart_and_a_stale_replica_on_one_sqlite_store_agree_after_a_fade(
    tmp_path: Any,
) -> None:
    from engine.adapters.store.sql import SqlStore

    with SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        one, replica = book(store), book(store)
        full_table(one)
        assert replica.find("w1 query 4").kind.kind_id == "k2"  # read up to the full table
        made = one.find("w2 new").kind  # k1 fades: the replica has not read it yet
        assert made.kind_id == "k7"  # seq 6 was the replica's member, 7 the fade
        # the replica reads the log before it matches: it joins the new kind, never the faded
        assert replica.find("w2 again").kind.kind_id == made.kind_id
        restarted = book(store)
        assert replica.kind("k1").faded
        assert restarted.kind("k1").faded
        described = [[(k.kind_id, k.faded, k.anchor) for k in b.kinds] for b in (one, replica)]
        assert described[0] == described[1]
        assert [(k.kind_id, k.faded, k.anchor) for k in restarted.kinds] == described[0]


def test_two_engines_and_a_restart_agree_on_a_faded_kind_and_its_learning(
    world: World, tmp_path: Any
) -> None:
    from engine.adapters.store.sql import SqlStore

    with SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        config = replace(world.engine().config, max_kinds=1)
        first = world.engine(store=store, config=config)
        sums = first.decide("What is the sum 3 + 4?")
        assert sums.kind is not None
        assert sums.kind.id == "k1"
        for n in range(32):  # named tasks' kinds age the log: k1 is now stale, and tiny
            first.decide(f"What is the sum {n} + 1?", task=f"task-{n}")
        learned = first.arms(kind="k1")
        second = world.engine(store=store, config=config)
        letters = second.decide("What is the first letter of the word kite?")
        assert letters.kind is not None
        assert letters.kind.new
        assert "kind k1 (1 query" in letters.kind.why
        restarted = world.engine(store=store, config=config)
        rows = [engine.kinds() for engine in (first, second, restarted)]
        assert rows[0] == rows[1] == rows[2]
        faded = next(row for row in rows[0] if row["kind"] == "k1")
        assert (faded["faded"], faded["decisions"]) == (True, 1)
        # left as history: what k1 learned stays under its anchor, here and after a restart
        assert first.arms(kind="k1") == learned == restarted.arms(kind="k1")
        after = first.decide("What is the sum 8 + 9?")
        assert after.kind is not None
        assert after.kind.id == letters.kind.id
