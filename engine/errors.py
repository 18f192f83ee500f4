"""Every error that ThinkPath raises on purpose, drawn as one tree.

The root and the learning core's errors are defined in `learning.errors`, the template and retrieval
errors in `templates.errors` and `retrieval.errors` (inner layers may not import this one); they
are re-exported here so that callers import every error from one place.

    ThinkPathError
    ├── PolicyError (ValueError)        the learning core was given a bad argument; state unchanged
    │   ├── InvalidRewardError          NaN, infinite or outside [0, 1]; or a bad weight
    │   ├── UnknownArmError (KeyError)  an arm the policy does not hold
    │   ├── DuplicateArmError           adding an arm that is already there
    │   ├── ContextError                missing, unexpected or wrongly shaped context
    │   ├── UnknownPolicyError          a policy name not in the registry
    │   ├── InvalidParameterError       an unknown or out-of-range policy parameter
    │   └── StateError                  a state dict that is malformed or from a newer version
    ├── ConfigError                     a setting that is missing, malformed or inconsistent
    ├── InvalidQueryError (ValueError)  a query that is empty, not text or too long
    ├── InvalidKindError (ValueError)   a task or kind name that is not a slug, or is taken
    ├── UnknownModelError (ValueError)  a model the engine's catalogue does not hold
    ├── TemplateError                   a reasoning-path template file that does not validate
    ├── StoreError                      the persistent store cannot do what was asked
    │   ├── StoreUnavailableError       missing, locked, read-only, corrupt or foreign database
    │   ├── SchemaVersionError          written by a newer ThinkPath
    │   ├── UnknownDecisionError        no decision with that id
    │   ├── UnknownKindError            no kind of query with that id
    │   ├── OutcomeConflictError        the same (decision, source) posted with another value
    │   └── OutcomeLimitError           a decision's sources or a source's corrections are full
    ├── LLMError                        the language model failed to give a usable answer
    │   ├── LLMTimeoutError
    │   ├── LLMUnavailableError         provider unreachable or model missing
    │   │   └── ModelFileError          a local model file missing, partial or failing its hash
    │   └── LLMOutputError              output that does not parse or validate
    ├── BudgetExceededError             a per-decision budget (calls, tokens, seconds) ran out
    ├── RetrievalError                  a search backend failed (see retrieval.errors)
    │   ├── QueryError (ValueError)     empty, oversized or otherwise unusable query
    │   ├── SearchUnavailableError      network down, timeout, rate limit: try another backend
    │   ├── IndexStoreError             the local index file is corrupt, locked or foreign
    │   │   └── EmbeddingMismatchError  its vectors come from another embedding model
    │   └── EmbeddingError              the embedding model cannot be loaded or run
    └── ToolError                       a tool failed, timed out or is not allowed
        └── ToolRefusalError            a tool did not understand the whole question
"""

from learning.errors import (
    ContextError,
    DuplicateArmError,
    InvalidParameterError,
    InvalidRewardError,
    PolicyError,
    StateError,
    ThinkPathError,
    UnknownArmError,
    UnknownPolicyError,
)
from retrieval.errors import RetrievalError
from templates.errors import TemplateError

__all__ = [
    "BudgetExceededError",
    "ConfigError",
    "ContextError",
    "DuplicateArmError",
    "InvalidKindError",
    "InvalidParameterError",
    "InvalidQueryError",
    "InvalidRewardError",
    "LLMError",
    "LLMOutputError",
    "LLMTimeoutError",
    "LLMUnavailableError",
    "ModelFileError",
    "OutcomeConflictError",
    "OutcomeLimitError",
    "PolicyError",
    "RetrievalError",
    "SchemaVersionError",
    "StateError",
    "StoreError",
    "StoreUnavailableError",
    "TemplateError",
    "ThinkPathError",
    "ToolError",
    "ToolRefusalError",
    "UnknownArmError",
    "UnknownDecisionError",
    "UnknownKindError",
    "UnknownModelError",
    "UnknownPolicyError",
]


class ConfigError(ThinkPathError):
    """A setting that is missing, malformed or inconsistent."""


class InvalidQueryError(ThinkPathError, ValueError):
    """A query that is empty, not text, or too long; nothing was decided or stored."""


class InvalidKindError(ThinkPathError, ValueError):
    """A task or kind name that is not a slug, or a name another kind holds."""


class UnknownModelError(ThinkPathError, ValueError):
    """A model the engine's catalogue does not hold (a pinned `model=`); nothing was decided."""


class StoreError(ThinkPathError):
    """The persistent store cannot do what was asked; nothing was half-written."""


class StoreUnavailableError(StoreError):
    """The database is missing, locked, read-only, corrupt or not a ThinkPath store."""


class SchemaVersionError(StoreError):
    """The store was written by a newer ThinkPath than this one."""


class UnknownDecisionError(StoreError, KeyError):
    """No decision with that id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class UnknownKindError(StoreError, KeyError):
    """No kind of query with that id in the namespace."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class OutcomeConflictError(StoreError):
    """The same (decision, source) was posted before with a different reward or weight."""


class OutcomeLimitError(StoreError):
    """A decision has as many client sources, or a source as many corrections, as it may keep.

    Nothing was recorded; every outcome recorded before stands (`EngineConfig.max_outcome_*`).
    """


class LLMError(ThinkPathError):
    """The language model failed to give a usable answer."""


class LLMTimeoutError(LLMError):
    """The model did not answer within its time limit."""


class LLMUnavailableError(LLMError):
    """The provider is unreachable or the model is not installed."""


class ModelFileError(LLMUnavailableError):
    """A local model's file is missing, partial or not the pinned one (size, SHA-256), or its
    chunk packages are; it was not loaded, and the message says what to run."""


class LLMOutputError(LLMError):
    """The model's output does not parse or does not validate against its schema."""


class BudgetExceededError(ThinkPathError):
    """A per-decision budget (LLM calls, tokens or seconds) ran out."""


class ToolError(ThinkPathError):
    """A tool failed, timed out, or is not on the allow-list."""


class ToolRefusalError(ToolError):
    """A tool refused a question it could not account for in full (see `tools.reading`)."""
