"""What a person waits for: decisions on a new kind of query, beside one bare call to the model.

    python -m experiments.benchmarks.decision_latency [--workload capitals|addition]
        [--decisions 12] [--model local/smollm2] [--checker] [--seed 0] [--no-before]
        [--big local/qwen2.5-coder-1.5b] [--json results.json]
    python -m experiments.benchmarks.decision_latency --rating-prompt [--pairs 4]

One model is loaded in this process (the embedded SmolLM2-135M by default) and shared by three
contenders, which take turns query by query (the order rotates, so a busy machine's slow
seconds fall on all of them alike):

- `bare`: one plain chat call with the query alone, the answer's token limit: the yardstick;
- `before`: the engine without cost at the path draw (`THINKPATH_DRAW_PRICE_PER_SECOND=0`, as
  shipped before it): its paths drawn by their accuracy alone;
- `after`: the engine as shipped: each path charged its measured seconds at the draw (no
  rating, a kind's first decision makes no call besides its answer, exact tools read a new
  kind's question themselves, as in both).

Each engine has its own in-memory store and sees the kind for the first time. The workloads:
`capitals` asks "What is the capital of X?" (a factual kind where no tool fits), `addition`
asks "What is A plus B?" (a kind whose whole question the calculator reads). Per decision it
records the total and each stage's seconds from the trace, and classes the decision: `first`
(it created its kind), `rated` (the rating call ran), `cached` (a cold arm explored on the
kind's stored rating), `cold` (a cold arm drawn without a rating) or `warm`. Figures are medians
and p90s and, since the machine is shared, ratios to the bare call measured in the same run.
`--second-kind N` then has each engine decide N questions of another kind ("Who wrote the book
Hamlet?"): the first of them is a new kind's first decision in an engine that has timed its
paths on the stream's kind, as a deployed engine meets most of its new kinds.

`--rating-prompt` times the rating call alone, its prompt as before (full descriptions) and as
shipped (`rating.gist`, each description's first clause), beside the bare call, in rotating
order. Two identical prompts in a row are not compared: llama.cpp reuses the previous prompt's
prefix, so a repeat costs only its generation.
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine, build_llm, build_option_scorer, build_searcher
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from engine.domain.models import Decision
from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, LLMRequest
from engine.orchestration.facade import Engine
from engine.settings import load_settings

STAGES = ("seed", "seed_check", "rating", "detour", "tool", "answer", "referee", "checker")
CONTENDERS = ("bare", "before", "after")


@dataclass
class Timings:
    """One contender's seconds per decision, its stages' seconds and each decision's class."""

    total: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)
    arms: list[str] = field(default_factory=list)  # each decision's path and tool
    rewards: list[float] = field(default_factory=list)  # the checker's, where there is one
    # after the stream: a second kind's decisions (`AUTHORS`), the first of them its first
    second_kind: list[float] = field(default_factory=list)
    second_arms: list[str] = field(default_factory=list)


CAPITALS = (
    ("France", "Paris"),
    ("Japan", "Tokyo"),
    ("Italy", "Rome"),
    ("Egypt", "Cairo"),
    ("Canada", "Ottawa"),
    ("Kenya", "Nairobi"),
    ("Peru", "Lima"),
    ("Norway", "Oslo"),
    ("Greece", "Athens"),
    ("Cuba", "Havana"),
    ("Chile", "Santiago"),
    ("Poland", "Warsaw"),
    ("Spain", "Madrid"),
    ("Germany", "Berlin"),
    ("Russia", "Moscow"),
    ("Ireland", "Dublin"),
)
WORKLOADS = ("addition", "capitals")
# A second factual kind, met after the stream: its first decision is a new kind's first in an
# engine that has timed its paths on another kind, as a deployed engine's new kinds are.
AUTHORS = (
    ("Hamlet", "Shakespeare"),
    ("War and Peace", "Tolstoy"),
    ("Don Quixote", "Cervantes"),
)


def query_stream(count: int, seed: int, workload: str = "addition") -> list[tuple[str, str]]:
    """`count` questions of one kind with their answers: "What is 23 plus 19?" with fresh
    numbers each, or "What is the capital of Japan?" (cycling through `CAPITALS`).

    >>> query_stream(1, 0)[0][0].startswith("What is ")
    True
    >>> query_stream(2, 0, "capitals")[1]
    ('What is the capital of Japan?', 'Tokyo')
    """
    if workload == "capitals":
        picks = [CAPITALS[(seed + index) % len(CAPITALS)] for index in range(count)]
        return [(f"What is the capital of {country}?", city) for country, city in picks]
    rng = np.random.default_rng(seed)
    pairs = rng.integers(11, 90, size=(count, 2))
    return [(f"What is {a} plus {b}?", str(a + b)) for a, b in pairs.tolist()]


def decision_kind(decision: Decision) -> str:
    """`first`, `rated`, `cached`, `cold` or `warm` (see the module)."""
    if decision.kind is not None and decision.kind.new:
        return "first"
    ratings = [step for step in decision.trace if step.stage == "rating"]
    if ratings and ratings[-1].reason in ("done", "cached"):
        return "rated" if ratings[-1].reason == "done" else "cached"
    selection = decision.step("selection")
    return "cold" if decision.path.arm_id in selection.inputs.get("cold", []) else "warm"


def stage_seconds(decision: Decision) -> dict[str, float]:
    """Seconds per stage of one decision (a stage run twice counts both)."""
    seconds: dict[str, float] = {}
    for step in decision.trace:
        seconds[step.stage] = seconds.get(step.stage, 0.0) + step.seconds
    return seconds


def bare_call(llm: LLM, query: str, max_tokens: int) -> None:
    llm.complete(
        LLMRequest(messages=(ChatMessage("user", query),), max_tokens=max_tokens, purpose="bare")
    )


def run(
    llm: LLM,
    engines: dict[str, Engine],
    decisions: int,
    *,
    checker: bool,
    seed: int,
    workload: str = "addition",
    second_kind: int = 0,
    big: LLM | None = None,
) -> dict[str, Timings]:
    """Interleave the bare call (and the big model's, where there is one) and each engine's
    decision, query by query; then each engine decides `second_kind` questions of another kind
    (`AUTHORS`)."""
    answer_tokens = next(iter(engines.values())).config.answer_max_tokens
    bares = {"bare": llm, **({"bare_big": big} if big is not None else {})}
    contenders = (*bares, *engines)
    timings = {name: Timings() for name in contenders}
    for index, (query, expected) in enumerate(query_stream(decisions, seed, workload)):
        turn = index % len(contenders)
        order = contenders[turn:] + contenders[:turn]
        for name in order:
            started = time.perf_counter()
            if name in bares:
                bare_call(bares[name], query, answer_tokens)
                timings[name].total.append(time.perf_counter() - started)
                continue
            check = _exact(expected) if checker else None
            decision = engines[name].decide(query, checker=check)
            timings[name].total.append(time.perf_counter() - started)
            timings[name].kinds.append(decision_kind(decision))
            timings[name].arms.append(_arms(decision))
            checked = [o.reward for o in decision.outcomes if o.source == "checker"]
            timings[name].rewards.extend(checked[:1])
            for stage, seconds in stage_seconds(decision).items():
                timings[name].stages.setdefault(stage, []).append(seconds)
        print(f"{index + 1}/{decisions}: " + ", ".join(_latest(timings, name) for name in order))
    for work, author in AUTHORS[:second_kind]:
        for name, engine in engines.items():
            started = time.perf_counter()
            check = _exact(author) if checker else None
            decision = engine.decide(f"Who wrote the book {work}?", checker=check)
            timings[name].second_kind.append(time.perf_counter() - started)
            timings[name].second_arms.append(_arms(decision))
    return timings


def _arms(decision: Decision) -> str:
    """The decision's path and tool, after its model where it chose one of several."""
    arms = f"{decision.path.arm_id}+{decision.tool.arm_id}"
    return arms if decision.model is None else f"{decision.model.arm_id}:{arms}"


def _exact(expected: str) -> Callable[[str], float]:
    return lambda text: 1.0 if expected in text.split("Answer:")[-1] else 0.0


def _latest(timings: dict[str, Timings], name: str) -> str:
    kind = f" {timings[name].kinds[-1]}" if timings[name].kinds else ""
    return f"{name} {timings[name].total[-1]:.2f}s{kind}"


def summary(timings: dict[str, Timings]) -> dict[str, Any]:
    """Medians, p90s and ratios to the bare call's median, overall, per class and per stage."""
    bare = statistics.median(timings["bare"].total)
    result: dict[str, Any] = {"bare_median_s": bare, "bare_p90_s": _p90(timings["bare"].total)}
    for name in [name for name in ("before", "after") if name in timings]:
        entry = timings[name]
        by_kind: dict[str, Any] = {}
        for kind in sorted(set(entry.kinds)):
            values = [t for t, k in zip(entry.total, entry.kinds, strict=True) if k == kind]
            by_kind[kind] = _figures(values, bare)
        result[name] = {
            "all": _figures(entry.total, bare),
            "by_kind": by_kind,
            "stages": {s: _figures(v, bare) for s, v in entry.stages.items() if s in STAGES},
            "kinds": entry.kinds,
            "arms": entry.arms,
            "accuracy": round(sum(entry.rewards) / len(entry.rewards), 3)
            if entry.rewards
            else None,
            "seconds": [round(t, 3) for t in entry.total],
            "second_kind_s": [round(t, 3) for t in entry.second_kind],
            "second_kind_arms": entry.second_arms,
        }
    result["bare_seconds"] = [round(t, 3) for t in timings["bare"].total]
    if "bare_big" in timings:
        big = timings["bare_big"].total
        result["bare_big_median_s"] = round(statistics.median(big), 3)
        result["bare_big_seconds"] = [round(t, 3) for t in big]
    return result


def _figures(values: list[float], bare: float) -> dict[str, float]:
    median = statistics.median(values)
    p90 = _p90(values)
    return {
        "n": len(values),
        "median_s": round(median, 3),
        "p90_s": round(p90, 3),
        "median_x_bare": round(median / bare, 2),
        "p90_x_bare": round(p90 / bare, 2),
    }


def _p90(values: list[float]) -> float:
    return float(np.percentile(values, 90))


def rating_prompt_pairs(llm: LLM, pairs: int) -> dict[str, Any]:
    """The rating call with full descriptions and with their gists, beside the bare call."""
    from engine.adapters.memory_searcher import InMemorySearcher  # noqa: PLC0415
    from engine.compose import build_toolbox  # noqa: PLC0415
    from engine.domain.records import PathDefinition  # noqa: PLC0415
    from engine.stages import rating  # noqa: PLC0415
    from engine.stages.prompting import neutralise  # noqa: PLC0415
    from templates import load_templates  # noqa: PLC0415

    query = query_stream(1, 0)[0][0]
    paths = [PathDefinition.from_template(t) for t in load_templates([])]
    toolbox = build_toolbox(load_settings(store_url="memory"), InMemorySearcher([]))
    tools = {"none": "answer without a tool", **toolbox.describe()}
    shipped = rating.gist
    limits = {rating.DESCRIPTION_CHARS: 200, rating.TOOL_CHARS: 160}  # the limits before

    def full(text: str, limit: int) -> str:
        return neutralise(text, limits[limit])

    times: dict[str, list[float]] = {"before": [], "after": [], "bare": []}
    chars: dict[str, int] = {}
    order = ("after", "bare", "before")  # rotated: never the same prompt twice in a row
    try:
        for index in range(3 * pairs):
            name = order[index % 3]
            rating.gist = full if name == "before" else shipped
            started = time.perf_counter()
            if name == "bare":
                bare_call(llm, query, 320)
            else:
                chars[name] = len(rating.rating_messages(query, paths, tools)[1].content)
                rating.rate_paths(llm, query, paths, tools, retries=0, timeout_s=300)
            times[name].append(round(time.perf_counter() - started, 3))
    finally:
        rating.gist = shipped
    bare = statistics.median(times["bare"])
    return {
        "seconds": times,
        "prompt_chars": chars,
        "median_x_bare": {k: round(statistics.median(v) / bare, 2) for k, v in times.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=WORKLOADS, default="addition")
    parser.add_argument("--decisions", type=int, default=12)
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--checker", action="store_true", help="score by the exact answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--rating-prompt", action="store_true", help="time the rating call only")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument(
        "--second-kind",
        type=int,
        default=0,
        choices=range(len(AUTHORS) + 1),
        help="then decide this many questions of a second kind (its first: a new kind's first)",
    )
    parser.add_argument(
        "--no-before", action="store_true", help="time bare and the shipped engine only"
    )
    parser.add_argument(
        "--big",
        help="a second model (e.g. local/qwen2.5-coder-1.5b): the shipped engine chooses between "
        "both per kind, and the big model's bare call is timed too",
    )
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.pairs < 1:
        parser.error("--decisions and --pairs must be at least 1")
    if args.rating_prompt:
        llm = build_llm(load_settings(model=args.model, store_url="memory"))
        bare_call(llm, "Hello", 8)  # the model loads on its first call
        found = rating_prompt_pairs(llm, args.pairs)
        found["load_average"] = [round(x, 2) for x in os.getloadavg()]
        print(json.dumps(found, indent=1))
        if args.json:
            args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
        return 0
    with tempfile.TemporaryDirectory() as home:
        settings = load_settings(home=Path(home), model=args.model, store_url="memory")
        started = time.perf_counter()
        llm = build_llm(settings)
        bare_call(llm, "Hello", 8)  # the model loads on its first call: not part of any figure
        big = build_llm(settings.model_copy(update={"model": args.big})) if args.big else None
        if big is not None:
            bare_call(big, "Hello", 8)
        catalogue = ModelCatalogue(
            [ModelEntry(args.model, llm, build_option_scorer(llm))]
            + ([ModelEntry(args.big, big, build_option_scorer(big))] if big is not None else [])
        )
        searcher = build_searcher(settings)
        ready_s = time.perf_counter() - started
        engines = {
            name: build_engine(
                load_settings(
                    home=Path(home),
                    model=args.model,
                    store_url="memory",
                    **({"draw_price_per_second": 0.0} if unpriced else {}),
                ),
                models=catalogue,
                store=InMemoryStore(),
                searcher=searcher,
            )
            for name, unpriced in (("before", True), ("after", False))
            if not (args.no_before and unpriced)
        }
        timings = run(
            llm,
            engines,
            args.decisions,
            checker=args.checker,
            seed=args.seed,
            workload=args.workload,
            second_kind=args.second_kind,
            big=big,
        )
    result = summary(timings)
    result.update(
        {
            "decisions": args.decisions,
            "workload": args.workload,
            "model": args.model,
            "big": args.big,
            "checker": args.checker,
            "model_and_index_load_s": round(ready_s, 2),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }
    )
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("seconds")}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
