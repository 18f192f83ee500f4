"""ThinkPath's settings: environment variables prefixed `THINKPATH_`, validated with clear errors.

Reading them has no side effect; `engine.compose.build_engine` is the only place that turns them
into clients. `THINKPATH_HOME` (default `DEFAULT_HOME`, `~/.thinkpath`) holds every file
ThinkPath writes.

>>> settings = load_settings(path_policy="thompson", budget_calls=4)
>>> settings.engine_config().budget.max_calls
4
>>> load_settings(path_policy="nope")
Traceback (most recent call last):
...
engine.errors.ConfigError: invalid setting THINKPATH_PATH_POLICY: Value error, unknown policy ...
"""

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from engine.domain.budget import Budget
from engine.domain.config import (
    BUDGET_CALLS,
    BUDGET_SECONDS,
    BUDGET_TOKENS,
    PRODUCT_REFEREE_AUDIT,
    PRODUCT_SEED_GATE,
    DetourRules,
    EngineConfig,
)
from engine.domain.pricing import CostPrice, DrawPrice
from engine.errors import ConfigError
from learning import available_policies
from learning.base import COLD_PULLS, COLD_WIDTH

__all__ = ["DEFAULT_HOME", "DEFAULT_MODELS", "DEFAULT_POLICY", "Settings", "load_settings"]

DEFAULT_HOME = Path("~/.thinkpath")  # the data directory when THINKPATH_HOME is not set

# The path and tool policies' default: Thompson sampling per query family, each family's Beta
# prior centred on what the other families taught, worth at most m = 4 pulls
# (`learning/pooled_thompson.py`), rather than keyed `thompson` (every family from zero). Why:
# `python -m experiments.pooling --seeds 30` (docs/benchmarks.md, "Many families, few queries
# each"; 20 families x 10 queries) cut regret by 21-24 (of 52-57 from zero) where families
# resemble each other, and cost 1.7 [-0.7, 4.2], not distinguishable from zero, where they share
# nothing; and on public BIG-bench streams a per-family policy from zero spread every family's
# decisions over 6 to 10 of the 10 tool arms ("Online on public BIG-bench tasks: a first look").
# Its choices stay posterior draws, so the logged propensities still serve off-policy evaluation.
DEFAULT_POLICY = "pooled_thompson"

PathList = Annotated[list[Path], NoDecode]
NameList = Annotated[list[str], NoDecode]

# The default catalogue of models (`THINKPATH_MODELS`): the small model that answers in under a
# second, and the coder model that answers what it cannot, at about four times its seconds; the
# engine learns per kind of query which one pays (docs/engine.md, "Models as arms").
DEFAULT_MODELS = ("local/smollm2", "local/qwen2.5-coder-1.5b")

# The engine's tunables have their defaults in one place, `EngineConfig` (and the `Budget` and
# `DetourRules` it holds); a setting that overrides one reads its default from there.
_ENGINE = EngineConfig()
_DETOUR = _ENGINE.detour


class Settings(BaseSettings):
    """Every setting, with its environment variable `THINKPATH_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="THINKPATH_", extra="forbid", frozen=True)

    home: Path = Field(default=DEFAULT_HOME, description="data directory")
    namespace: str = Field(
        default=_ENGINE.namespace, min_length=1, max_length=64, pattern=r"^[\w.-]+$"
    )
    # language models: `models` is the catalogue the engine chooses from per kind of query
    # (litellm strings, `local/...` in-process); `model`, set alone, is a catalogue of one, and
    # is the model an experiment asks bare (`engine.compose.build_llm`).
    models: NameList = Field(default_factory=lambda: list(DEFAULT_MODELS))
    model: str = Field(default=DEFAULT_MODELS[0], description="a litellm model string")
    # The catalogue model that writes the program tool's programs (one not in the catalogue:
    # each decision's own model writes them).
    program_model: str = DEFAULT_MODELS[1]
    # The catalogue model that reads a question's options where the rule reader refuses (one
    # call, only for a question that shows a sign of a written set); "" (the default) or a model
    # not in the catalogue: the rule reader alone. Off by default: on a fresh held-out set it
    # raised recall 0.756 -> 0.897 but cut precision 1.000 -> 0.946 (docs/benchmarks.md, "A third
    # held-out set, and the model as a second reader"), and a wrong reading is worse than none.
    option_reader_model: str = ""
    api_base: str | None = None
    api_key: SecretStr | None = None
    llm_threads: int = Field(default=1, ge=1, le=64, description="local model CPU threads")
    llm_context: int = Field(default=4096, ge=512, le=131072, description="local model n_ctx")
    llm_prefix_cache_mb: int = Field(
        default=64, ge=0, le=16384, description="local model: saved prompt-prefix states, MiB"
    )
    llm_timeout_s: float = Field(default=_ENGINE.llm_timeout_s, gt=0, le=3600)
    # store: a SQLAlchemy URL, "memory", or empty for the SQLite file under `home`
    store_url: str = ""
    # learning
    path_policy: str = DEFAULT_POLICY
    tool_policy: str = DEFAULT_POLICY
    policy_seed: int | None = None
    # When an arm is cold: the policies' own defaults (`learning.base.COLD_PARAMS` says why).
    cold_pulls: float = Field(default=COLD_PULLS, ge=0)
    cold_width: float = Field(default=COLD_WIDTH, gt=0)
    # a learner checkpoint every this many outcomes (0: never): a start replays at most this many
    checkpoint_every: int = Field(default=_ENGINE.checkpoint_every, ge=0, le=10_000_000)
    # per-decision budget
    budget_calls: int = Field(default=BUDGET_CALLS, ge=1, le=100)
    budget_tokens: int = Field(default=BUDGET_TOKENS, ge=64)
    budget_seconds: float = Field(default=BUDGET_SECONDS, gt=0)
    # retrieval and tools
    web_search: bool = False
    index_folders: PathList = Field(default_factory=list)
    templates_dirs: PathList = Field(default_factory=list)
    max_templates: int = Field(
        default=_ENGINE.max_templates, ge=1, le=1000, description="live templates at most"
    )
    max_templates_kept: int = Field(
        default=_ENGINE.max_templates_kept,
        ge=1,
        le=100_000,
        description="templates kept, live and retired",
    )
    # a decision's outcome history: client sources per decision, revisions per source
    max_outcome_sources: int = Field(default=_ENGINE.max_outcome_sources, ge=1, le=10_000)
    max_outcome_revisions: int = Field(default=_ENGINE.max_outcome_revisions, ge=1, le=10_000)
    # ratings kept in process, one per query family and candidate set (0: rate every cold one)
    rating_cache_size: int = Field(default=_ENGINE.rating_cache_size, ge=0, le=100_000)
    tools: NameList = Field(
        default_factory=lambda: ["calculator", "units", "text", "numbers", "local_search"]
    )
    tool_timeout_s: float = Field(default=_ENGINE.tool_timeout_s, gt=0, le=600)
    # outcomes and detours
    # The referee's weight before it is measured (the prior; by default 0, so the referee judges
    # only kinds of query where audits measured it: `engine.domain.config.PRODUCT_REFEREE_PRIOR`
    # says why; above 0, a user opts in), and the share of checked decisions whose answer it also
    # judges, to measure it against the checker.
    referee_weight: float = Field(default=_ENGINE.weight_for("referee"), ge=0, le=1)
    referee_audit: float = Field(default=PRODUCT_REFEREE_AUDIT, ge=0, le=1)
    # Learn per query family whether a seed brief helps (False: always build one).
    seed_gate: bool = PRODUCT_SEED_GATE
    # The model's rating of cold paths (off: it did not predict outcomes, see EngineConfig).
    rate_cold_paths: bool = _ENGINE.rate_cold_paths
    # A query joins a known kind at this cosine with its profile (unset: the embedder's own);
    # at most this many kinds.
    kind_threshold: float | None = Field(default=_ENGINE.kind_threshold, gt=0, le=1)
    max_kinds: int = Field(default=_ENGINE.max_kinds, ge=1, le=10_000)
    # Cost in the reward (`engine.domain.pricing`): what the policies learn is the reward less
    # this much per LLM call and per second of LLM time; 0 (off) learns the raw reward.
    cost_per_call: float = Field(default=_ENGINE.cost_price.per_call, ge=0, le=1)
    cost_per_second: float = Field(default=_ENGINE.cost_price.per_second, ge=0, le=1)
    # Cost at the path draw (`engine.domain.pricing.DrawPrice`): a path's sampled value is
    # lowered by this much per second it takes on the kind; 0 draws by accuracy alone.
    draw_price_per_second: float = Field(default=_ENGINE.draw_price.per_second, ge=0, le=1)
    detour_prob_best_floor: float = Field(default=_DETOUR.prob_best_floor, ge=0, le=1)
    detour_failure_streak: int = Field(default=_DETOUR.failure_streak, ge=1)
    detour_retire_min_pulls: float = Field(default=_DETOUR.retire_min_pulls, gt=0)
    detour_retire_below: float = Field(default=_DETOUR.retire_below, ge=0, le=1)

    @field_validator("index_folders", "templates_dirs", "tools", mode="before")
    @classmethod
    def _split_commas(cls, value: Any) -> Any:
        # Lists come from the environment as "a,b,c": friendlier than JSON in a shell.
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("path_policy", "tool_policy")
    @classmethod
    def _known_policy(cls, value: str) -> str:
        known = available_policies()
        if value not in known:
            raise ValueError(f"unknown policy {value!r}; known policies: {', '.join(known)}")
        return value

    @field_validator("models", mode="before")
    @classmethod
    def _split_models(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("model")
    @classmethod
    def _provider_model(cls, value: str) -> str:
        return _check_model(value)

    @field_validator("models")
    @classmethod
    def _provider_models(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("name at least one model, e.g. local/smollm2")
        if len(set(value)) != len(value):
            raise ValueError(f"a model is named twice in {value}")
        return [_check_model(model) for model in value]

    @property
    def catalogue(self) -> list[str]:
        """The models the engine chooses from: `THINKPATH_MODELS`, or `THINKPATH_MODEL` alone
        where only that one is set (a configuration from before models were arms)."""
        if "model" in self.model_fields_set and "models" not in self.model_fields_set:
            return [self.model]
        return list(self.models)

    @property
    def data_dir(self) -> Path:
        return self.home.expanduser()

    def engine_config(self) -> EngineConfig:
        """The engine's tunables from these settings."""
        return EngineConfig(
            namespace=self.namespace,
            budget=Budget(
                max_calls=self.budget_calls,
                max_tokens=self.budget_tokens,
                max_seconds=self.budget_seconds,
            ),
            llm_timeout_s=self.llm_timeout_s,
            max_templates=self.max_templates,
            max_templates_kept=self.max_templates_kept,
            max_outcome_sources=self.max_outcome_sources,
            max_outcome_revisions=self.max_outcome_revisions,
            rating_cache_size=self.rating_cache_size,
            tool_timeout_s=self.tool_timeout_s,
            detour=DetourRules(
                prob_best_floor=self.detour_prob_best_floor,
                failure_streak=self.detour_failure_streak,
                retire_min_pulls=self.detour_retire_min_pulls,
                retire_below=self.detour_retire_below,
            ),
            source_weights={**_ENGINE.source_weights, "referee": self.referee_weight},
            seed=self.policy_seed,
            checkpoint_every=self.checkpoint_every,
            referee_audit=self.referee_audit,
            seed_gate=self.seed_gate,
            rate_cold_paths=self.rate_cold_paths,
            kind_threshold=self.kind_threshold,
            max_kinds=self.max_kinds,
            cost_price=CostPrice(
                self.cost_per_call,
                self.cost_per_second,
                max_calls=self.budget_calls,
                max_seconds=self.budget_seconds,
            ),
            draw_price=DrawPrice(self.draw_price_per_second),
            program_model=self.program_model,
            option_reader_model=self.option_reader_model or None,
        )


def _check_model(value: str) -> str:
    if "/" not in value:
        raise ValueError(
            f"model {value!r} names no provider: use provider/model, e.g. local/smollm2"
        )
    return value


def load_settings(**overrides: Any) -> Settings:
    """Read the environment (overrides win); a bad value raises `ConfigError` naming it."""
    try:
        return Settings(**overrides)
    except ValidationError as error:
        problems = []
        for item in error.errors():
            field = ".".join(str(part) for part in item["loc"]) or "settings"
            name = f"THINKPATH_{field.upper()}" if field != "settings" else field
            problems.append(f"invalid setting {name}: {item['msg']}")
        raise ConfigError("; ".join(problems)) from None
    except SettingsError as error:
        raise ConfigError(f"unreadable settings: {error}") from None
