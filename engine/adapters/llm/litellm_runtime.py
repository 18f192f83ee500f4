"""Import litellm once, offline and quiet: the only place that loads the library.

litellm takes 4-5 s to import and, unless told otherwise, fetches a price list from the internet
while importing; so nothing imports it at module level. Every adapter asks `load_litellm()` at
the moment it first needs the library.
"""

import importlib
import os
import threading
import warnings
from types import ModuleType

__all__ = ["load_litellm"]

OFFLINE_SWITCH = "LITELLM_LOCAL_MODEL_COST_MAP"

# Imported by every `litellm.completion` call; at import it builds pydantic TypeAdapters over
# TypedDicts with ReadOnly items, and pydantic warns about each. Where warnings are errors (our
# test suite), that import fails, is not cached, and so fails every completion. Importing it once
# here with that one warning silenced fixes both the failure and the noise on stderr.
_WARNING_MODULES = (
    "litellm.llms.github_copilot.authenticator",
    "litellm.llms.github_copilot.per_user_auth",
)

_lock = threading.Lock()
_litellm: ModuleType | None = None


def load_litellm() -> ModuleType:
    """Return the litellm module, importing it with its bundled (offline) price list.

    A user who set the switch keeps their value; otherwise the bundled price list is used, so
    importing never reaches the internet. Console banners ("Provider List: ...", "Give Feedback")
    are turned off: errors reach the caller as `LLMError`s instead.
    """
    global _litellm  # noqa: PLW0603 - the process-wide module handle, set once under the lock
    with _lock:
        if _litellm is None:
            os.environ.setdefault(OFFLINE_SWITCH, "True")
            import litellm  # noqa: PLC0415 - deliberately lazy, see the module docstring

            litellm.suppress_debug_info = True
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*ReadOnly", category=UserWarning)
                for name in _WARNING_MODULES:
                    try:
                        importlib.import_module(name)
                    except ImportError:  # moved or gone in another litellm release: no warning
                        continue
            _litellm = litellm
        return _litellm
