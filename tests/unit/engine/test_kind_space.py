"""The embedder is part of the kind book: its id and version are in the kind log, a process
with another embedder refuses to match against those kinds, and each embedder states the
threshold at which a query joins a kind."""

import logging
from typing import Any

import numpy as np
import pytest

from engine.adapters.store.memory import InMemoryStore
from engine.domain.kinds import DEFAULT_KIND_THRESHOLD, KindEvent
from engine.errors import ConfigError
from engine.orchestration.kind_book import KindBook, KindSettings, embedder_space
from retrieval.embedding import HashingEmbedder
from retrieval.embedding.hashing import HASHING_KIND_THRESHOLD
from retrieval.embedding.minilm import MINILM_KIND_THRESHOLD
from tests.unit.engine.conftest import Directions


class WideDirections(Directions):
    """Another model of the same width as the hashing fall-back: only its id tells them apart."""

    model_id = "another-model"
    version = "2.1"


def book(store: Any, embedder: Any, **settings: Any) -> KindBook:
    return KindBook(
        log=store,
        namespace="default",
        embedder=embedder,
        dimension=4,
        settings=KindSettings(**settings),
    )


def test_the_log_records_the_embedders_id_and_version_before_its_first_vector() -> None:
    store = InMemoryStore()
    book(store, HashingEmbedder(4)).find("capital of Peru")
    first, created = store.kind_events_since("default", 0)
    assert (first.action, first.name, first.example) == ("space", "hashing-4@1", "dimension 4")
    assert (created.action, created.anchor is not None) == ("create", True)
    assert embedder_space(WideDirections()) == "another-model@2.1"
    assert embedder_space(Directions()) == "directions"  # no version: its id is its name
    assert embedder_space(None) is None


def test_another_embedder_of_the_same_width_refuses_to_match_never_silently(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = InMemoryStore()
    model = book(store, WideDirections())
    peru = model.find("capital of Peru").kind
    model.find("add 1", task="sums")
    with caplog.at_level(logging.ERROR, logger="engine.orchestration.kind_book"):
        fallback = book(store, HashingEmbedder(4))
    assert "found with the embedder 'another-model@2.1'" in caplog.text  # said at start
    for unnamed in (lambda: fallback.find("capital of Peru"), lambda: fallback.peek("capital")):
        with pytest.raises(ConfigError, match=r"embeds with 'hashing-4@1'.*THINKPATH_NAMESPACE"):
            unnamed()
    assert fallback.find("add 2", task="sums").kind.kind_id == "task:sums"  # named: no matching
    new_task = fallback.find("capital of Peru", task="capitals").kind
    assert new_task.anchor != peru.anchor  # not its own vector: a placeholder, out of the space
    assert abs(float(np.dot(new_task.anchor, peru.anchor))) < 0.99
    assert [e.action for e in store.kind_events_since("default", 0)].count("space") == 1
    assert model.find("capital of Chile").kind == peru  # the model's own process goes on


def test_a_log_written_before_the_embedder_was_recorded_takes_the_first_readers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = InMemoryStore()
    old = KindEvent("default", 1, "k1", "create", "discovered", None, (0, 1.0, 0, 0), "q")
    assert store.append_kind_event(old)
    with caplog.at_level(logging.WARNING, logger="engine.orchestration.kind_book"):
        kinds = book(store, WideDirections())
        assert kinds.find("capital of Chile").kind.kind_id == "k1"
    assert "does not say which embedder" in caplog.text
    assert store.kind_events_since("default", 1)[0].name == "another-model@2.1"
    # ids do not count the space event: the next kind, at seq 4 (after it and a member), is k3
    assert kinds.find("spell apple").kind.kind_id == "k3"
    assert len({kind.kind_id for kind in book(store, WideDirections()).kinds}) == 2
    with pytest.raises(ConfigError):
        book(store, HashingEmbedder(4)).find("capital of Chile")


def test_each_embedder_states_its_threshold_and_a_setting_overrides_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = InMemoryStore()
    assert book(store, HashingEmbedder(4)).threshold == HASHING_KIND_THRESHOLD == 0.6
    assert book(store, HashingEmbedder(4), threshold=0.3).threshold == 0.3
    assert MINILM_KIND_THRESHOLD == DEFAULT_KIND_THRESHOLD == 0.45

    class Unstated:
        model_id, dimension = "unstated", 4

    with caplog.at_level(logging.WARNING, logger="engine.orchestration.kind_book"):
        assert book(InMemoryStore(), Unstated()).threshold == DEFAULT_KIND_THRESHOLD
    assert "states no kind threshold" in caplog.text
