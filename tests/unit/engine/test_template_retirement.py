"""Retiring a template, the template cap and near-duplicate ids, through the facade."""

from dataclasses import replace

import pytest

from engine.domain.config import EngineConfig
from engine.domain.records import ArmRecord
from engine.errors import TemplateError, UnknownArmError
from engine.orchestration import arm_book
from engine.orchestration.facade import Engine
from tests.unit.engine.conftest import TEMPLATES, World, checker_for


def live_paths(engine: Engine) -> set[str]:
    return {a.arm_id for a in engine.arms() if a.role == "path" and not a.retired}


def test_retired_everywhere_sharing_the_store_with_its_record_kept(world: World) -> None:
    first, second = world.engine(), world.engine()
    for n in range(4):
        query = f"What is {n} + 2?"
        first.decide(query, checker=checker_for(query))
    before = {(a.role, a.arm_id): a for a in first.arms()}[("path", "digits")]
    stats = first.retire_template("digits", "superseded")
    assert stats.retired
    assert stats.retired_reason == "superseded"
    assert (stats.pulls, stats.outcomes) == (before.pulls, before.outcomes)
    second.refresh()  # another process adopts the retirement from the store's catalogue
    for engine in (first, second):
        assert "digits" not in live_paths(engine)
        for n in range(5):
            decision = engine.decide(f"What is {n} + 5?")
            assert decision.path.arm_id != "digits"
            assert "digits" not in {c.arm_id for c in decision.candidates}
    restarted = world.engine()  # a fresh process reading the same store
    assert "digits" not in live_paths(restarted)
    assert restarted.templates()[0].arm_id == "digits"  # its definition is still known


def test_the_last_live_template_cannot_be_retired(world: World) -> None:
    engine = world.engine()
    engine.retire_template("digits", "x")
    engine.retire_template("letters", "x")
    with pytest.raises(TemplateError, match="last live template"):
        engine.retire_template("ramble", "x")


def test_retiring_needs_a_template_and_a_reason(world: World) -> None:
    engine = world.engine()
    with pytest.raises(UnknownArmError, match="no template"):
        engine.retire_template("nope", "x")
    with pytest.raises(TemplateError, match="reason"):
        engine.retire_template("digits", "   ")


def test_the_cap_counts_live_templates(world: World) -> None:
    engine = world.engine(config=EngineConfig(seed=5, max_templates=4))
    extra = replace(TEMPLATES[0], id="extra", name="Extra")
    engine.add_template(extra)
    with pytest.raises(TemplateError, match=r"cap is 4 \(THINKPATH_MAX_TEMPLATES\)"):
        engine.add_template(replace(TEMPLATES[0], id="one-more", name="One more"))
    engine.retire_template("ramble", "make room")
    engine.add_template(replace(TEMPLATES[0], id="one-more", name="One more"))
    assert len(engine.templates()) == 5


def test_an_id_differing_only_in_separators_is_a_duplicate(world: World) -> None:
    engine = world.engine()
    engine.add_template(replace(TEMPLATES[0], id="count-up", name="Count up"))
    with pytest.raises(TemplateError, match="too close to 'count_up'"):
        engine.add_template(replace(TEMPLATES[0], id="count_up", name="Count up 2"))
    engine.retire_template("count-up", "x")
    with pytest.raises(TemplateError, match="exists already"):  # retired ids stay taken
        engine.add_template(replace(TEMPLATES[0], id="count-up", name="Count up 3"))


def test_a_name_that_reads_like_another_is_refused(world: World) -> None:
    engine = world.engine()
    engine.add_template(replace(TEMPLATES[0], id="count-up", name="Count up"))
    for alike in ("Count up", "count UP", "  Count   up "):
        with pytest.raises(TemplateError, match="reads like that of the path 'count-up'"):
            engine.add_template(replace(TEMPLATES[0], id="other", name=alike))
    engine.add_template(replace(TEMPLATES[0], id="other", name="Count down"))


def test_a_catalogue_unchanged_since_it_was_adopted_is_not_read_through_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    adopted: list[int] = []
    in_order = arm_book._in_creation_order

    def counted(records: list[ArmRecord]) -> list[ArmRecord]:
        adopted.append(len(records))
        return in_order(records)

    monkeypatch.setattr(arm_book, "_in_creation_order", counted)
    first, second = world.engine(), world.engine()
    first.decide("What is 1 + 2?")
    before = len(adopted)
    first.decide("What is 2 + 2?")
    assert len(adopted) == before  # the same records: nothing to adopt
    second.retire_template("digits", "superseded")  # another process changes a record
    retired = len(adopted)
    first.decide("What is 3 + 2?")
    assert len(adopted) == retired + 1  # read through, and adopted
    assert "digits" not in live_paths(first)
