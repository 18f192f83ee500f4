"""A small test world for the pipeline: templates, features, tools, a searcher and a scripted LLM.

Two kinds of query: arithmetic ("What is 3 + 4?") and spelling ("First letter of apple?"). The
"digits" path answers arithmetic right, "letters" answers spelling right, "ramble" answers
nothing right. The scripted model plays the part of an LLM that follows the path it is given.
"""

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest

from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_policy_factory
from engine.domain.config import DetourRules, EngineConfig
from engine.domain.pricing import DrawPrice
from engine.domain.records import LLMRequest, Passage, ToolResult
from engine.errors import ToolError
from engine.orchestration.facade import Engine
from engine.settings import Settings
from learning import PolicyLike

# A user's opt-in weight for the referee where audits never measured it (THINKPATH_REFEREE_WEIGHT;
# the shipped prior is 0), for tests of the referee's own path.
REFEREE_OPT_IN = 0.5


@dataclass(frozen=True)
class FakeTemplate:
    id: str
    name: str
    description: str
    prompt: str
    tags: tuple[str, ...] = ()


TEMPLATES = [
    FakeTemplate("digits", "Digits", "compute numerically", "STRATEGY=DIGITS\n{seed}\n{query}"),
    FakeTemplate("letters", "Letters", "spell it out", "STRATEGY=LETTERS\n{query}"),
    FakeTemplate("ramble", "Ramble", "talk around it", "STRATEGY=RAMBLE\n{query}"),
]

PASSAGES = [
    Passage("Addition combines two numbers into their sum.", "notes/addition.md", "Addition"),
    Passage("The first letter of a word is its initial.", "notes/letters.md", "Letters"),
]


def featurize(query: str) -> np.ndarray:
    """One-hot family (arithmetic, spelling) plus a bias."""
    arithmetic = 1.0 if re.search(r"\d\s*[-+*/]\s*\d", query) else 0.0
    return np.array([arithmetic, 1.0 - arithmetic, 1.0])


def family(query: str) -> str:
    return "arithmetic" if featurize(query)[0] else "spelling"


class Directions:
    """An embedding double: each query's first word picks one of four orthogonal directions
    (any other first word: the mean of all four)."""

    model_id = "directions"
    dimension = 4
    kind_threshold = 0.45
    words = ("add", "capital", "spell", "date")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            first = text.split()[0]
            if first in self.words:
                rows[row, self.words.index(first)] = 1.0
            else:
                rows[row] = [float(word in text.split()) for word in self.words]
                rows[row] /= max(float(np.linalg.norm(rows[row])), 1.0)
        return rows


class FamilyEmbedder:
    """An embedding double: the test world's two families as orthogonal unit vectors, so that
    each family is one kind of query (a query joins its family's kind at cosine 1)."""

    model_id = "test-families"
    dimension = 2
    kind_threshold = 0.45

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([featurize(text)[:2] for text in texts], dtype=np.float32)


def solve(query: str) -> str:
    """The right answer to a test query."""
    match = re.search(r"(\d+)\s*\+\s*(\d+)", query)
    if match:
        return str(int(match.group(1)) + int(match.group(2)))
    word = re.search(r"of (\w+)", query)
    return word.group(1)[0] if word else "?"


def checker_for(query: str) -> Callable[[str], float]:
    expected = solve(query)
    return lambda text: 1.0 if text.strip().endswith(f"Answer: {expected}") else 0.0


@dataclass
class FakeToolBox:
    """A calculator that works and a search tool that always fails."""

    runs: list[tuple[str, str]] = field(default_factory=list)

    def names(self) -> list[str]:
        return ["none", "calculator", "broken_search"]

    def describe(self) -> dict[str, str]:
        return {"calculator": "evaluates arithmetic", "broken_search": "searches (broken)"}

    def run(self, name: str, argument: str, timeout_s: float) -> ToolResult:
        self.runs.append((name, argument))
        if name == "calculator":
            return ToolResult(True, solve(argument), None, 0.0)
        if name == "broken_search":
            return ToolResult(False, "", "connection refused", 0.0)
        raise ToolError(f"tool {name!r} is not allowed")


class World:
    """Builds engines over one shared store, with a configurable scripted model."""

    def __init__(self) -> None:
        self.store = InMemoryStore()
        self.searcher = InMemorySearcher(PASSAGES)
        self.toolbox = FakeToolBox()
        self.overrides: dict[str, Callable[[LLMRequest], str]] = {}
        self.rating_favourite: str | None = None  # the arm the scripted rater scores 5
        self.rating_tool = "none"
        self.referee_score = 4
        self.policies: list[PolicyLike] = []

    # -- the scripted model -------------------------------------------------------------------
    def script(self, request: LLMRequest) -> str:
        if request.purpose in self.overrides:
            return self.overrides[request.purpose](request)
        answer: str = getattr(self, f"_{request.purpose}")(request)
        return answer

    def _seed(self, request: LLMRequest) -> str:
        return "Addition combines numbers [notes/addition.md]; an initial is a first letter."

    def _rate(self, request: LLMRequest) -> str:
        return json.dumps(rating_reply(request, self.rating_favourite, self.rating_tool))

    def _detour(self, request: LLMRequest) -> str:
        paths = [
            {"name": "Sketch it", "approach": "STRATEGY=SKETCH draw the situation, then solve."},
            {"name": "Ask why", "approach": "STRATEGY=WHY ask why five times, then solve it."},
        ]
        return json.dumps({"paths": paths})

    def _answer(self, request: LLMRequest) -> str:
        prompt = request.messages[-1].content
        query = next((line for line in prompt.splitlines() if line.startswith("What is")), "")
        arithmetic = bool(featurize(query)[0])
        good = ("STRATEGY=DIGITS" in prompt and arithmetic) or (
            "STRATEGY=LETTERS" in prompt and not arithmetic
        )
        return f"Thinking.\nAnswer: {solve(query) if good else 'unsure'}"

    def _referee(self, request: LLMRequest) -> str:
        return json.dumps({"score": self.referee_score, "reason": "scripted"})

    checker_for = staticmethod(checker_for)

    # -- engines ------------------------------------------------------------------------------
    def llm(self) -> ScriptedLLM:
        return ScriptedLLM(self.script)

    def policy_factory(self, cold_pulls: float = 2.0) -> Callable[[str, list[str], int], Any]:
        """The shipped policy factory (`build_policy_factory`: the default policy of each role,
        a random stream per role), seeded, with the shipped settings read from nowhere else:
        `model_construct` takes the fields' defaults and skips the environment."""
        shipped = build_policy_factory(
            Settings.model_construct(policy_seed=11, cold_pulls=cold_pulls, cold_width=1.0)
        )

        def build(role: str, arms: list[str], context_dim: int) -> PolicyLike:
            policy = shipped(role, arms, context_dim)
            self.policies.append(policy)
            return policy

        return build

    def engine(
        self,
        llm: ScriptedLLM | None = None,
        *,
        config: EngineConfig | None = None,
        cold_pulls: float = 2.0,
        tools: bool = False,
        policy_factory: Callable[[str, list[str], int], Any] | None = None,
        store: Any | None = None,
        always_seed: bool = False,
        referee_weight: float | None = None,
        rating: bool = False,
    ) -> Engine:
        """An engine configured as the product ships (`EngineConfig`'s defaults: the seed role
        and the referee's audits on, the referee's prior weight 0), with a scripted model.
        `always_seed` builds the seed for every decision (`THINKPATH_SEED_GATE=false`), for tests
        of the seed stage itself; `referee_weight` opts in to the referee where audits never
        measured it (`THINKPATH_REFEREE_WEIGHT`), for tests of the referee's path itself."""
        # No draw price: the scripted model's seconds are the wall clock's microseconds, noise
        # that a draw would charge (`test_draw_price.py` times its paths on purpose).
        config = config or EngineConfig(
            seed=5, detour=DetourRules(prob_best_floor=0.0), draw_price=DrawPrice(0.0)
        )
        if rating:
            config = replace(config, rate_cold_paths=True)
        if always_seed:
            config = replace(config, seed_gate=False)
        if referee_weight is not None:
            weights = {**config.source_weights, "referee": referee_weight}
            config = replace(config, source_weights=weights)
        return Engine(
            llm=llm or self.llm(),
            searcher=self.searcher,
            store=store or self.store,
            templates=TEMPLATES,
            embedder=FamilyEmbedder(),
            policy_factory=policy_factory or self.policy_factory(cold_pulls),
            toolbox=self.toolbox if tools else None,
            config=config,
        )


def known_kinds(engine: Engine, llm: ScriptedLLM | None = None) -> Engine:
    """`engine` once it knows both kinds of the test world (a first decision of each), with
    `llm`'s requests forgotten: the first decision of a new kind makes no call besides its
    answer, so a test of the seed, rating or detour stages starts from known kinds."""
    engine.decide("What is the sum 1 + 1?")
    engine.decide("What is the first letter of the word kite?")
    if llm is not None:
        llm.requests.clear()
    return engine


def seed_calls(decision: Any) -> list[str]:
    """The seed call a decision made: none where the seed role chose to answer without one."""
    return [] if decision.step("seed").reason == "skipped" else ["seed"]


def rating_reply(request: LLMRequest, favourite: str | None, tool: str) -> dict[str, Any]:
    """Score 5 for `favourite` and 3 for the rest, reading the numbered list in the prompt."""
    numbered = re.findall(r"^(\d+)\. (\S+):", request.messages[-1].content, re.MULTILINE)
    scores = [5 if arm == favourite else 3 for _, arm in numbered]
    return {"scores": scores, "tool": tool}


@pytest.fixture
def world() -> World:
    return World()
