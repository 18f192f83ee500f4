"""ThinkPath's decision engine: the public surface.

    from engine import build_engine

    engine = build_engine()  # settings from THINKPATH_* variables
    decision = engine.decide("What is 17 * 23?")
    engine.record_outcome(decision.id, reward=1.0, source="user")

Importing `engine` (or any of its modules, such as `engine.errors`) loads nothing heavy: the
names below are resolved on first use.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.compose import build_engine
    from engine.domain.models import Decision, OutcomeResult
    from engine.orchestration.facade import Engine
    from engine.settings import Settings, load_settings

__all__ = ["Decision", "Engine", "OutcomeResult", "Settings", "build_engine", "load_settings"]

_HOMES = {
    "build_engine": "engine.compose",
    "Engine": "engine.orchestration.facade",
    "Decision": "engine.domain.models",
    "OutcomeResult": "engine.domain.models",
    "Settings": "engine.settings",
    "load_settings": "engine.settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    return getattr(import_module(home), name)
