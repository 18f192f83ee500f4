"""The engine's tunables as plain values; `engine.settings` fills them from the environment."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.domain.budget import Budget
from engine.domain.kinds import DEFAULT_MAX_KINDS
from engine.domain.pricing import CostPrice, DrawPrice
from engine.domain.procedures import MAX_PROCEDURE_CALLS

# Six calls is the worst case a single-call path can reach (seed, rating, detour, answer, referee
# and one structured retry): structured retries are allowed only within it
# (`engine.orchestration.run_state`). A procedure's extra answer calls (`engine.domain.procedures`:
# up to three for self-consistency or a program with its fallback) come only from what the budget
# leaves, so the worst case of any decision is the single path's plus those extra calls; the
# default budget allows it, so it never cuts a decision short on calls. Tokens and seconds are
# generous for the embedded model.
SINGLE_PATH_WORST_CALLS = 6
WORST_CASE_CALLS = SINGLE_PATH_WORST_CALLS - 1 + MAX_PROCEDURE_CALLS
BUDGET_CALLS, BUDGET_TOKENS, BUDGET_SECONDS = WORST_CASE_CALLS, 8192, 120.0
# What `thinkpath` runs with: the defaults of `EngineConfig` and of the settings alike, so that
# tests and experiments run the configuration the product ships.
PRODUCT_REFEREE_AUDIT, PRODUCT_SEED_GATE = 0.1, True
# The referee's weight where audits never measured it (the prior of
# `engine.stages.referee.reliability`): 0, so the referee judges only kinds of query where audits
# beside a checker measured it, or where a user opts in (`THINKPATH_REFEREE_WEIGHT` > 0).
# Why: unmeasured, it taught the policies noise. On the embedded model its mean reward was 0.25
# for right answers and 0.35 for wrong ones; in the playground, at the former prior 0.5, a right
# answer got 0.25 and a wrong one 0.75.
PRODUCT_REFEREE_PRIOR = 0.0
# The model's rating of cold paths, off: on the development families its scores did not predict
# which path answered right (docs/benchmarks.md, "Does the model's rating predict outcomes?"),
# and it cost the first decision of every kind one long call. A kind now starts from the prior
# its nearest kinds give (`pooled_thompson`) instead.
PRODUCT_RATE_COLD_PATHS = False


@dataclass(frozen=True)
class DetourRules:
    """When a detour fires and when a detour arm is retired."""

    prob_best_floor: float = 0.2  # every arm's P(best) below this: no path is convincing
    failure_streak: int = 3  # this many path rewards in a row below `failure_below`
    failure_below: float = 0.5
    paths_per_detour: int = 2
    max_live_detours: int = 4
    retire_min_pulls: float = 3.0  # a fair trial before judging a detour arm
    retire_below: float = 0.3


@dataclass(frozen=True)
class EngineConfig:
    """Everything the pipeline and the facade need to know, with working defaults."""

    namespace: str = "default"
    budget: Budget = field(
        default_factory=lambda: Budget(BUDGET_CALLS, BUDGET_TOKENS, BUDGET_SECONDS)
    )
    passages: int = 5  # retrieved per search
    seed_max_tokens: int = 160
    answer_max_tokens: int = 320
    llm_timeout_s: float = 60.0
    tool_timeout_s: float = 10.0
    # Live templates at most: each one is a candidate in the rating prompt, so the cap bounds
    # that prompt's length as well as what one caller can add.
    max_templates: int = 64
    # Templates a namespace keeps, live and retired: a retired one keeps its id, statistics and
    # history for good, so retire-and-add cycles would grow the catalogue (and every listing of
    # it) without end; past this many, adding is refused (retiring never is).
    max_templates_kept: int = 256
    # A decision's outcome history, bounded: at most this many client sources (`user`,
    # `user:<name>`) score one decision, and each source keeps at most this many revisions (its
    # first score and its corrections). Past either, the post is refused (`OutcomeLimitError`)
    # and every outcome recorded before stands. Why: one decision took 3,000 sources and 2,000
    # corrections, and its GET grew to 584 KB, while the evidence rule lets only one score per
    # role count (`engine.domain.evidence`). With the engine's own three sources, a decision
    # holds at most 16 x 16 + 3 = 259 outcomes.
    max_outcome_sources: int = 16
    max_outcome_revisions: int = 16
    # Ratings kept in process, one per query family (0: rate on every cold decision, as before
    # `stages.rating.RatingCache`); the rating is a prior, so one per family and candidate set.
    rating_cache_size: int = 256
    min_rating_to_explore: int = 2  # cold arms rated below this are not explored on the LLM's word
    rate_cold_paths: bool = PRODUCT_RATE_COLD_PATHS  # ask the model to rate cold paths first
    # Kinds of query (`engine.domain.kinds`): the cosine at which a query joins a known kind
    # (None: the embedder's own, `kind_threshold`, measured per embedder), and the most kinds a
    # namespace discovers (then a query joins its nearest kind).
    kind_threshold: float | None = None
    max_kinds: int = DEFAULT_MAX_KINDS
    detour: DetourRules = field(default_factory=DetourRules)
    # The catalogue model that writes the program tool's programs (a coder model writes programs
    # that a 135M model cannot); None, or a model not in the catalogue: the decision's own.
    program_model: str | None = None
    # The catalogue model that reads a question's options where the rule reader refuses and the
    # question shows a sign of a written set (`engine.stages.option_reading`: one optional call,
    # its reading held to the question's own text); None, or a model not in the catalogue: the
    # rule reader alone.
    option_reader_model: str | None = None
    # Read-only, and a copy of what was passed: the config is shared by the facade, the arm
    # book and the pipeline, so no holder (nor the caller) can change another's weights. The
    # referee's is only its prior, for families its audits never measured.
    source_weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "checker": 1.0,
            "user": 1.0,
            "referee": PRODUCT_REFEREE_PRIOR,
            "tool": 1.0,
        }
    )
    seed: int | None = None  # for the engine's own tie-breaking randomness
    # Save the learner's state every this many outcomes (0: never), so that a start replays at
    # most this many; each save serialises every policy, a few milliseconds.
    checkpoint_every: int = 1000
    # Share of checked decisions whose answer the referee also judges, to measure the referee
    # (`engine.stages.referee.reliability`, counted by the arm book's referee role); its weight
    # shrinks to the prior with this many pseudo-pairs.
    referee_audit: float = PRODUCT_REFEREE_AUDIT
    referee_prior_pairs: float = 10.0
    # Learn per kind of query whether to build the seed (the arm book's seed role); False
    # builds it for every decision.
    seed_gate: bool = PRODUCT_SEED_GATE
    # Cost in the reward (`engine.domain.pricing`); off by default.
    cost_price: CostPrice = field(default_factory=CostPrice)
    # Cost at the path draw: each path's measured seconds charged on its sampled value
    # (`engine.domain.pricing.DrawPrice`); on by default, 0 turns it off.
    draw_price: DrawPrice = field(default_factory=DrawPrice)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source_weights", MappingProxyType(dict(self.source_weights)))

    def weight_for(self, source: str) -> float:
        """The default weight of an outcome source (1.0 for a source not listed)."""
        return self.source_weights.get(source, 1.0)
