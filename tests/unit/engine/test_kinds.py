"""Kinds of query: named tasks, kinds found from embeddings, their bound, their names, restarts,
and an engine without an embedding model."""

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from engine import compose
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.domain.kinds import PROFILE_MEMBERS, check_task_name
from engine.errors import InvalidKindError, UnknownKindError
from engine.orchestration.kind_book import KindBook, KindSettings
from engine.settings import load_settings
from tests.unit.engine.conftest import Directions, World, known_kinds


def book(store: Any = None, **settings: Any) -> KindBook:
    return KindBook(
        log=store or InMemoryStore(),
        namespace="default",
        embedder=Directions(),
        dimension=Directions.dimension,
        settings=KindSettings(**settings),
    )


def test_a_query_joins_the_nearest_kind_above_the_threshold_else_starts_one() -> None:
    kinds = book(threshold=0.5)
    first = kinds.find("add 2 and 3")
    # seq 1 records the embedder ("space"), which the kinds' ids do not count
    assert (first.kind.kind_id, first.new, first.similarity) == ("k1", True, None)
    again = kinds.find("add 5 and 8")
    assert (again.kind.kind_id, again.new, again.similarity) == ("k1", False, 1.0)
    assert "like 'add 2 and 3' (cosine 1.00)" in again.why
    other = kinds.find("capital of Peru")
    assert (other.kind.kind_id, other.new) == ("k3", True)  # the second member came between
    assert "below 0.50" in other.why
    between = kinds.find("mixed add capital")  # cosine 0.71 with both: joins the older
    assert between.kind.kind_id == "k1"


def test_at_the_bound_a_query_joins_its_nearest_kind_and_says_so() -> None:
    kinds = book(max_kinds=2)
    kinds.find("add 1")
    kinds.find("capital of Peru")
    full = kinds.find("spell apple")  # orthogonal to both, but no room for a third kind
    assert not full.new
    assert full.kind.kind_id in ("k1", "k2")
    assert "the most kinds allowed (2) exist" in full.why
    assert len(kinds.kinds) == 2


def test_a_kinds_profile_is_its_first_members_and_then_stays() -> None:
    store = InMemoryStore()
    kinds = book(store)
    for n in range(PROFILE_MEMBERS + 5):
        kinds.find(f"add {n}")
    members = [e for e in store.kind_events_since("default", 0) if e.action == "member"]
    assert len(members) == PROFILE_MEMBERS - 1  # the creating query is the first member


def test_a_named_task_is_a_kind_of_its_own_and_names_are_slugs() -> None:
    kinds = book()
    triage = kinds.find("add up the invoice", task="triage")
    assert (triage.kind.kind_id, triage.kind.origin, triage.new) == ("task:triage", "task", True)
    assert kinds.find("add up the invoice", task="triage").kind == triage.kind
    assert kinds.find("add up the invoice").kind.kind_id != "task:triage"  # unnamed: not joined
    for bad in ("Ticket Triage", "triage!", "", "a" * 65, "сheck"):  # the last: a Cyrillic с
        with pytest.raises(InvalidKindError, match="task name"):
            kinds.find("add 1", task=bad)
    with pytest.raises(ValueError, match="'с' at position 1"):
        check_task_name("сheck")


def test_renaming_a_kind_keeps_it_and_its_name_then_works_as_a_task() -> None:
    store = InMemoryStore()
    kinds = book(store)
    made = kinds.find("capital of Peru").kind
    renamed = kinds.rename(made.kind_id, "capitals")
    assert (renamed.kind_id, renamed.name, renamed.anchor) == (
        made.kind_id,
        "capitals",
        made.anchor,
    )
    assert kinds.find("spell it", task="capitals").kind.kind_id == made.kind_id
    assert book(store).kind(made.kind_id).name == "capitals"  # another process reads it too
    other = kinds.find("spell apple").kind
    with pytest.raises(InvalidKindError, match="taken by kind"):
        kinds.rename(other.kind_id, "capitals")
    with pytest.raises(UnknownKindError):
        kinds.rename("k99", "nothing")


def test_kinds_are_identical_after_a_restart_and_decisions_keep_theirs(world: World) -> None:
    engine = world.engine()
    decisions = [
        engine.decide(q) for q in ("What is the sum 3 + 4?", "What is the first letter of kite?")
    ]
    restarted = world.engine()
    assert restarted.kinds() == engine.kinds()
    for decision in decisions:
        assert decision.kind is not None
        stored = world.store.get_decision(decision.id)
        assert stored.kind == decision.kind.id
        assert restarted.get_decision(decision.id).kind == decision.kind
    snapshot = restarted.snapshot()
    assert [row["decisions"] for row in snapshot["kinds"]] == [1, 1]
    assert {row["example"] for row in snapshot["kinds"]} == {
        "What is the sum 3 + 4?",
        "What is the first letter of kite?",
    }


def test_an_engine_names_and_renames_kinds_and_filters_arms_by_kind(world: World) -> None:
    engine = known_kinds(world.engine())
    named = engine.decide("What is the sum 3 + 4?", task="sums")
    assert named.kind is not None
    assert (named.kind.id, named.kind.origin) == ("task:sums", "task")
    assert named.step("kind").outputs["why"] == "the named task 'sums', first seen"
    kind_id = engine.kinds()[0]["kind"]
    assert engine.rename_kind(kind_id, "additions")["name"] == "additions"
    assert engine.decide("What is the sum 1 + 9?", task="additions").kind.id == kind_id  # type: ignore[union-attr]
    rows = engine.arms(kind=kind_id)
    assert all(row.prob_best is not None for row in rows if not row.retired)
    with pytest.raises(InvalidKindError):
        engine.decide("What is 2 + 2?", task="Not A Slug")


def test_without_an_embedding_model_kinds_come_from_shared_words_and_it_warns_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from retrieval import embedding

    monkeypatch.setattr(embedding, "load_default_embedder", lambda **_: None)
    compose._warn_no_embedder.cache_clear()
    settings = load_settings(store_url="memory")
    with caplog.at_level(logging.WARNING, logger="engine.compose"):
        first = compose.build_embedder(settings)
        compose.build_embedder(settings)
    warnings = [r for r in caplog.records if "no sentence-embedding model" in r.getMessage()]
    assert len(warnings) == 1
    assert "name your tasks" in warnings[0].getMessage()
    assert first.model_id.startswith("hashing")
    engine = compose.build_engine(settings, llm=World().llm(), searcher=InMemorySearcher([]))
    same = [
        engine.decide(q).kind
        for q in ("What is the capital of Peru?", "What is the capital of Chile?")
    ]
    assert same[0] is not None
    assert same[1] is not None
    assert same[0].id == same[1].id  # the words they share place them together


def test_a_query_with_no_words_to_embed_joins_the_unsorted_kind() -> None:
    class Blank(Directions):
        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return np.zeros((len(texts), self.dimension), dtype=np.float32)

    kinds = KindBook(log=InMemoryStore(), namespace="default", embedder=Blank(), dimension=4)
    first, second = kinds.find("???"), kinds.find("!!!")
    assert first.kind.kind_id == second.kind.kind_id == "unsorted"
    assert (first.new, second.new) == (True, False)


def test_kinds_whose_first_queries_embed_alike_hold_distinct_anchors() -> None:
    store = InMemoryStore()
    kinds = book(store)
    # one preamble, so one vector: two tasks, and a discovered kind made by the same query
    alpha = kinds.find("add the preamble, then the question", task="alpha").kind
    beta = kinds.find("add the preamble, then another question", task="beta").kind
    found = kinds.find("add the preamble, then a third question").kind
    anchors = {alpha.anchor, beta.anchor, found.anchor}
    assert len(anchors) == 3
    for anchor in anchors:  # still alike: they pool through their cosine, on purpose
        assert float(np.dot(anchor, alpha.anchor)) > 0.999
    assert kinds.peek("add anything", task="gamma") not in anchors  # a would-be kind's, too
    assert [k.anchor for k in book(store).kinds] == [k.anchor for k in kinds.kinds]  # restarted


def test_two_named_tasks_with_one_preamble_never_share_their_learning(world: World) -> None:
    from learning import make_policy

    policies: list[Any] = []

    def keyed(role: str, arms: list[str], context_dim: int) -> Any:
        policies.append(make_policy("thompson", arms, seed=3, context_dim=context_dim))
        return policies[-1]

    engine = world.engine(policy_factory=keyed)
    preamble = "What is the sum of the numbers below, read with care? " * 2  # 108 characters
    engine.decide(preamble + "1 + 2", task="alpha")
    engine.decide(preamble + "3 + 4", task="beta")
    path = policies[0]
    assert len(path.contexts) == 2  # two kinds, two sub-policies (one, keyed by bytes)
    alpha_context, beta_context = path.contexts
    before = path.sub_policy(beta_context).to_dict()
    for n in range(6):
        decision = engine.decide(preamble + f"{n} + 1", task="alpha")
        engine.record_outcome(decision.id, reward=1.0)
    assert path.sub_policy(beta_context).to_dict() == before
    assert path.sub_policy(alpha_context).to_dict() != before


def test_a_renamed_tasks_old_name_still_refers_to_it_after_a_restart_and_on_a_replica(
    tmp_path: Any,
) -> None:
    from engine.adapters.store.sql import SqlStore

    with SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        one, replica = book(store), book(store)
        alpha = one.find("add 1", task="alpha").kind
        assert replica.find("add 2", task="alpha").kind.kind_id == alpha.kind_id
        renamed = one.rename("task:alpha", "alpha-renamed")
        assert (renamed.name, renamed.aliases) == ("alpha-renamed", ("alpha",))
        for books in (one, replica, book(store)):  # this process, a stale replica, a restart
            match = books.find("add 3", task="alpha")
            assert (match.kind.kind_id, match.kind.name, match.new) == (
                "task:alpha",
                "alpha-renamed",
                False,
            )
            assert match.why == "the named task 'alpha' (renamed 'alpha-renamed')"
            assert books.find("add 4", task="alpha-renamed").kind.kind_id == "task:alpha"
            assert [k.label for k in books.kinds] == ["alpha-renamed"]
        other = one.find("capital of Peru", task="capitals").kind
        with pytest.raises(InvalidKindError, match=r"taken by kind 'task:alpha' \(its former"):
            replica.rename(other.kind_id, "alpha")
        back = replica.rename("task:alpha", "alpha")  # its own former name: taken back
        assert (back.name, back.aliases) == ("alpha", ("alpha-renamed",))
        assert book(store).kind("task:alpha").name == "alpha"


def test_a_log_that_created_a_renamed_task_again_keeps_the_first_kind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from engine.domain.kinds import KindEvent

    store = InMemoryStore()
    events = [  # what the version before this one wrote for rename-then-old-name
        KindEvent("default", 1, "task:alpha", "create", "task", "alpha", (1.0, 0, 0, 0), "q"),
        KindEvent("default", 2, "task:alpha", "rename", "task", "alpha-renamed", None),
        KindEvent("default", 3, "task:alpha", "create", "task", "alpha", (1.0, 0, 0, 0), "q"),
    ]
    for event in events:
        assert store.append_kind_event(event)
    with caplog.at_level(logging.WARNING, logger="engine.orchestration.kind_book"):
        kinds = book(store)
    (kind,) = kinds.kinds
    assert (kind.name, kind.aliases, kind.seq) == ("alpha-renamed", ("alpha",), 1)
    assert "creates kind 'task:alpha' again" in caplog.text


def test_at_the_bound_of_named_tasks_a_new_name_is_refused_and_the_others_go_on() -> None:
    store = InMemoryStore()
    kinds = book(store, max_tasks=2)
    kinds.find("add 1", task="sums")
    kinds.find("capital of Peru", task="capitals")
    with pytest.raises(InvalidKindError, match=r"task 'spelling' is new.*allowed \(2\) exist"):
        kinds.find("spell apple", task="spelling")
    assert kinds.find("add 2", task="sums").kind.kind_id == "task:sums"
    kinds.rename("task:sums", "additions")  # a rename makes no task: its old name still works
    assert kinds.find("add 3", task="sums").kind.kind_id == "task:sums"
    assert kinds.find("spell apple").kind.origin == "discovered"  # unnamed: found, as ever
    with pytest.raises(InvalidKindError, match="allowed"):
        book(store, max_tasks=2).find("spell apple", task="spelling")  # a restart agrees
    assert [k.kind_id for k in kinds.kinds if k.origin == "task"] == ["task:sums", "task:capitals"]


def test_two_engines_on_one_sqlite_store_and_a_restart_agree_on_a_rename(
    world: World, tmp_path: Any
) -> None:
    from engine.adapters.store.sql import SqlStore

    with SqlStore(f"sqlite:///{tmp_path / 'store.sqlite3'}") as store:
        first, second = world.engine(store=store), world.engine(store=store)
        first.decide("What is the sum 3 + 4?", task="alpha")
        assert first.rename_kind("task:alpha", "alpha-renamed")["aliases"] == ["alpha"]
        decision = second.decide("What is the sum 5 + 6?", task="alpha")  # the old name
        assert decision.kind is not None
        assert (decision.kind.id, decision.kind.label) == ("task:alpha", "alpha-renamed")
        assert decision.kind.why == "the named task 'alpha' (renamed 'alpha-renamed')"
        restarted = world.engine(store=store)
        for engine in (first, second, restarted):
            (row,) = engine.kinds()
            assert (row["kind"], row["name"], row["aliases"], row["decisions"]) == (
                "task:alpha",
                "alpha-renamed",
                ["alpha"],
                2,
            )
