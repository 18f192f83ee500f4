"""ThinkPath's decision engine: the public surface.

    from engine import build_engine, checker_for

    engine = build_engine()  # settings from THINKPATH_* variables
    decision = engine.decide("What is 17 * 23?")
    engine.record_outcome(decision.id, reward=1.0, source="user")

    checked = engine.decide("What is 6 * 7?", checker=checker_for("42"))  # scored by its answer

Importing `engine` (or any of its modules, such as `engine.errors`) loads nothing heavy: the
names below are resolved on first use.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.compose import build_engine
    from engine.domain.checkers import ExpectedChecker, checker_for
    from engine.domain.models import Decision, OutcomeResult
    from engine.orchestration.facade import Engine
    from engine.settings import Settings, load_settings

__all__ = [
    "Decision",
    "Engine",
    "ExpectedChecker",
    "OutcomeResult",
    "Settings",
    "build_engine",
    "checker_for",
    "load_settings",
]

_HOMES = {
    "build_engine": "engine.compose",
    "Engine": "engine.orchestration.facade",
    "Decision": "engine.domain.models",
    "OutcomeResult": "engine.domain.models",
    "Settings": "engine.settings",
    "load_settings": "engine.settings",
    # The one builder of a checker from an expected answer (library, CLI, REST, playground).
    "checker_for": "engine.domain.checkers",
    "ExpectedChecker": "engine.domain.checkers",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(import_module(home), name)
