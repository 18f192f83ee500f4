"""ThinkPath's decision engine: the public surface.

    from engine import build_engine, checker_for

    engine = build_engine()  # settings from THINKPATH_* variables
    decision = engine.decide("What is 17 * 23?")
    engine.record_outcome(decision.id, reward=1.0, source="user")

    checked = engine.decide("What is 6 * 7?", checker=checker_for("42"))  # scored by its answer

Importing `engine` (or any of its modules, such as `engine.errors`) loads nothing heavy: the
names below are resolved on first use.

Outer layers (`ui/`, `experiments/`) come in through these names, never through the engine's
floors (`engine.domain`, `engine.orchestration`, `engine.adapters`, `engine.stages`), so that a
floor can be reorganised without touching its users; `tests/unit/test_layers.py` holds `ui/` to
it. `engine.compose` (the composition root), `engine.settings` and `engine.errors` are public
modules of their own.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.adapters.store.sql import SqlStore
    from engine.adapters.tracking import default_tracking_uri
    from engine.compose import build_engine
    from engine.domain.checkers import (
        ANSWER_KINDS,
        ExpectedChecker,
        check_answer,
        checker_for,
        find_dates,
        parse_number_words,
    )
    from engine.domain.evidence import Evidence, client_source, in_force, split_source_key, teaches
    from engine.domain.models import (
        PROB_BEST_MEANING,
        ArmStats,
        Choice,
        Decision,
        OutcomeResult,
        Seed,
        SeedSource,
        ToolRun,
        TraceStep,
    )
    from engine.domain.ports import LLM, DecisionListener
    from engine.domain.records import (
        ChatMessage,
        ChatOptions,
        Cost,
        LearnedOutcome,
        PathDefinition,
    )
    from engine.orchestration.facade import Engine
    from engine.settings import Settings, load_settings
    from engine.stages.answer_text import find_loop

__all__ = [
    "ANSWER_KINDS",
    "LLM",
    "PROB_BEST_MEANING",
    "ArmStats",
    "ChatMessage",
    "ChatOptions",
    "Choice",
    "Cost",
    "Decision",
    "DecisionListener",
    "Engine",
    "Evidence",
    "ExpectedChecker",
    "LearnedOutcome",
    "OutcomeResult",
    "PathDefinition",
    "Seed",
    "SeedSource",
    "Settings",
    "SqlStore",
    "ToolRun",
    "TraceStep",
    "build_engine",
    "check_answer",
    "checker_for",
    "client_source",
    "default_tracking_uri",
    "find_dates",
    "find_loop",
    "in_force",
    "load_settings",
    "parse_number_words",
    "split_source_key",
    "teaches",
]

# name -> the module that defines it, imported on first use (PEP 562)
_HOMES = {
    "build_engine": "engine.compose",
    "Engine": "engine.orchestration.facade",
    "Settings": "engine.settings",
    "load_settings": "engine.settings",
    "SqlStore": "engine.adapters.store.sql",
    "default_tracking_uri": "engine.adapters.tracking",
    "find_loop": "engine.stages.answer_text",
    **dict.fromkeys(
        [
            "ANSWER_KINDS",
            "ExpectedChecker",
            "check_answer",
            "checker_for",
            "find_dates",
            "parse_number_words",
        ],
        "engine.domain.checkers",
    ),
    **dict.fromkeys(
        ["Evidence", "client_source", "in_force", "split_source_key", "teaches"],
        "engine.domain.evidence",
    ),
    **dict.fromkeys(
        [
            "PROB_BEST_MEANING",
            "ArmStats",
            "Choice",
            "Decision",
            "OutcomeResult",
            "Seed",
            "SeedSource",
            "ToolRun",
            "TraceStep",
        ],
        "engine.domain.models",
    ),
    **dict.fromkeys(["LLM", "DecisionListener"], "engine.domain.ports"),
    **dict.fromkeys(
        ["ChatMessage", "ChatOptions", "Cost", "LearnedOutcome", "PathDefinition"],
        "engine.domain.records",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(import_module(home), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
