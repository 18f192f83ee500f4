"""Import litellm once, offline and quiet: the only place that loads the library.

litellm takes 4-5 s to import and, unless told otherwise, fetches a price list from the internet
while importing; so nothing imports it at module level. Every adapter asks `load_litellm()` at
the moment it first needs the library.
"""

import os
from functools import cache
from types import ModuleType

__all__ = ["load_litellm"]

OFFLINE_SWITCH = "LITELLM_LOCAL_MODEL_COST_MAP"


@cache
def load_litellm() -> ModuleType:
    """Return the litellm module, importing it with its bundled (offline) price list.

    A user who set the switch keeps their value; otherwise the bundled price list is used, so
    importing never reaches the internet. Console banners ("Provider List: ...", "Give Feedback")
    are turned off: errors reach the caller as `LLMError`s instead.
    """
    os.environ.setdefault(OFFLINE_SWITCH, "True")
    import litellm  # noqa: PLC0415 - deliberately lazy, see the module docstring

    litellm.suppress_debug_info = True
    return litellm
