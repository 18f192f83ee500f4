"""Two engines on one real SQLite store learn the same thing; the real retrieval builds seeds."""

import json
from pathlib import Path

from engine.adapters.llm.scripted import ScriptedLLM
from engine.compose import build_engine
from engine.domain.records import LLMRequest
from engine.settings import load_settings

QUERY = "How many days are in a leap year?"


def script(request: LLMRequest) -> str:
    if request.purpose == "rate":
        assert request.json_schema is not None
        count = request.json_schema["properties"]["scores"]["minItems"]
        return json.dumps({"scores": [3] * count, "tool": "none"})
    if request.purpose == "referee":
        return json.dumps({"score": 4, "reason": "fine"})
    if request.purpose == "seed":
        return "A leap year has 366 days [calendar]."
    return "Answer: 366"


def test_engines_sharing_a_sqlite_store_learn_together(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path,
        store_url="",
        policy_seed=1,
        tools=["calculator"],
        seed_gate=False,
        referee_weight=0.5,  # opted in: by default an unmeasured referee is not asked
    )
    first = build_engine(settings, llm=ScriptedLLM(script))
    second = build_engine(settings, llm=ScriptedLLM(script))
    decision = first.decide(QUERY)  # the referee scores it: 1.0 at the opt-in weight, 0.5
    assert decision.seed.sources, "the embedded corpus should have something on leap years"
    assert not decision.seed.weak
    second.record_outcome(decision.id, "user", 0.5)
    second.record_outcome(decision.id, "user", 0.5)  # a retry: applied once
    first.refresh()

    def stats(engine):
        return {(r.role, r.arm_id): (r.pulls, r.mean_reward) for r in engine.arms()}

    assert stats(first) == stats(second)
    # One decision, one piece of evidence: the user's score, posted through the second engine,
    # replaced the referee's in both.
    assert stats(first)[("path", decision.path.arm_id)] == (1.0, 0.5)
    assert (tmp_path / "store.sqlite3").exists()
    reopened = build_engine(settings, llm=ScriptedLLM(script))  # a restart replays the log
    assert stats(reopened) == stats(first)
    assert reopened.get_decision(decision.id).answer == "Answer: 366"


def test_a_template_retired_by_one_engine_is_retired_for_all_and_after_a_restart(
    tmp_path: Path,
) -> None:
    settings = load_settings(home=tmp_path, store_url="", policy_seed=1)
    first = build_engine(settings, llm=ScriptedLLM(script))
    second = build_engine(settings, llm=ScriptedLLM(script))
    first.retire_template("analogy", "never helps here")

    def live_paths(engine) -> set[str]:
        return {r.arm_id for r in engine.arms() if r.role == "path" and not r.retired}

    second.refresh()
    reopened = build_engine(settings, llm=ScriptedLLM(script))
    for engine in (first, second, reopened):
        assert "analogy" not in live_paths(engine)
        retired = next(r for r in engine.arms() if r.arm_id == "analogy")
        assert retired.retired_reason == "never helps here"
    assert reopened.decide(QUERY).path.arm_id != "analogy"


def test_a_restart_from_a_checkpoint_learns_what_the_log_says(tmp_path: Path) -> None:
    def settings(every: int):
        return load_settings(
            home=tmp_path, store_url="", policy_seed=1, tools=["calculator"], checkpoint_every=every
        )

    def check(text: str) -> float:
        return 1.0 if "366" in text else 0.0

    engine = build_engine(settings(3), llm=ScriptedLLM(script))
    for index in range(6):
        decision = engine.decide(QUERY, checker=check)
        engine.record_outcome(decision.id, "user", float(index % 2))
    later = build_engine(settings(1000), llm=ScriptedLLM(script))  # saves no checkpoint
    later.decide(QUERY, checker=check)  # outcomes after the newest checkpoint: a tail
    engine.refresh()
    restored = build_engine(settings(1000), llm=ScriptedLLM(script))
    checkpoint_seq = restored._book._checkpoints._saved_seq
    last_seq = restored.outcome_log()[-1].seq
    assert 0 < checkpoint_seq < last_seq  # a checkpoint from SQLite, then a tail

    def learned(engine):
        return {(r.role, r.arm_id): (r.pulls, r.mean_reward, r.outcomes) for r in engine.arms()}

    assert learned(restored) == learned(engine)  # engine learned it outcome by outcome
