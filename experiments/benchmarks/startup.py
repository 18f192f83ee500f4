"""Engine start-up on a long outcome log: a full replay against a checkpoint plus its tail.

    python -m experiments.benchmarks.startup [--outcomes 1000000] [--tail 500] [--repeats 3]
        [--per-decision 1] [--postgres URL] [--before DIR] [--json results.json]

A store (a SQLite file, and with `--postgres` a fresh schema there) is filled through its bulk
path with `--outcomes` outcomes, spread over the built-in templates and several kinds of query:
one decision each, or with `--per-decision N` a decision for every N (a checker's score, then
N - 1 users'). Then, side by side in one run:

- `full_replay_s`: building the engine when no checkpoint may be used (every outcome replayed;
  once, the statistics every checkpoint start must match);
- `checkpoint_s`: building it again once a checkpoint exists and `--tail` more outcomes came
  after it (the checkpoint is loaded, the tail replayed). The tail is new decisions with one
  outcome each, or with `--per-decision` above 1 a late user's score on as many decisions
  picked all over the log (at most one each): every one of them makes the replay fold its
  decision's earlier scores from the store, and `evidence_read` counts the outcomes read so.

Both times are `Engine(...)` on an open store, the stand-in model and an in-memory searcher (the
store, not the model, is what is measured); `checkpoint_s` is the median of `--repeats`. The two
engines' statistics are compared arm for arm, and the run fails if they differ.
`checkpoint_bytes` is the size of the checkpoint's state as JSON. `--outcomes` takes several
sizes (`1000,1000000`), each measured on its own fresh store. With `--before DIR` (another
checkout, run with this virtual environment) each size is measured on that checkout's code too,
in a fresh process, just before this one's.
"""

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.sql import SqlStore
from engine.compose import build_policy_factory
from engine.domain.config import EngineConfig
from engine.domain.kinds import FALLBACK_DIMENSION, KindEvent, round_anchor
from engine.domain.records import NO_TOOL, DecisionRecord, OutcomeRecord
from engine.orchestration.facade import Engine
from engine.settings import Settings
from retrieval.embedding import HashingEmbedder
from templates import load_templates

QUERIES = (
    "What is 12 + 30?",
    "What is the first letter of the word 'banana'?",
    "Which is larger, 9 or 4?",
    "Answer A, B or C: which is a fruit?",
    "Is the sentiment of 'I loved it' positive?",
)
BATCH = 20_000
NAMESPACE = "startup"


EMBEDDER = HashingEmbedder(FALLBACK_DIMENSION)  # the store is measured, not the embedding model


def add_kinds(store: Any, queries: Sequence[str], namespace: str = NAMESPACE) -> list[str]:
    """One kind of query per query, in the store's kind log (once per store): the kind ids."""
    known = {event.example: event.kind_id for event in store.kind_events_since(namespace, 0)}
    for query in queries:
        if query not in known:
            seq = len(known) + 1
            anchor = round_anchor(EMBEDDER.embed([query])[0])
            event = KindEvent(
                namespace, seq, f"k{seq}", "create", "discovered", None, anchor, query
            )
            store.append_kind_event(event)
            known[query] = event.kind_id
    return [known[query] for query in queries]


def fill(store: SqlStore, count: int, first: int = 0, seed: int = 7, per_decision: int = 1) -> None:
    """`count` outcomes through the bulk path: `count / per_decision` decisions with a checker
    outcome each, and `per_decision - 1` scores of users after it (`user:u1`, ...)."""
    if per_decision > 1:
        count //= per_decision
    rng = np.random.default_rng(seed + first)
    arms = [template.id for template in load_templates()]
    kinds_of = add_kinds(store, QUERIES)
    moment = datetime(2026, 12, 1, tzinfo=UTC)
    for start in range(first, first + count, BATCH):
        size = min(BATCH, first + count - start)
        picks = rng.integers(len(arms), size=size)
        kinds = rng.integers(len(QUERIES), size=size)
        rewards = rng.random(size) < 0.3 + 0.5 * (picks % 3 == kinds % 3)
        decisions = [
            DecisionRecord(
                decision_id=f"d{start + index}",
                namespace=NAMESPACE,
                created_at=moment,
                query=QUERIES[kinds[index]],
                context=None,
                kind=kinds_of[kinds[index]],
                choices={"path": arms[picks[index]], "tool": NO_TOOL},
                propensities={"path": 1.0 / len(arms), "tool": 1.0},
            )
            for index in range(size)
        ]
        store.save_decisions(decisions)
        store.record_outcomes(
            [
                OutcomeRecord(f"d{start + index}", "checker", float(rewards[index]))
                for index in range(size)
            ]
        )
        for user in range(1, per_decision):
            store.record_outcomes(
                [
                    OutcomeRecord(f"d{start + index}", f"user:u{user}", float(rewards[index]))
                    for index in range(size)
                ]
            )


def late_scores(store: SqlStore, decisions: int, count: int, seed: int = 11) -> None:
    """`count` new user scores, each on a different decision of the first `decisions`: the
    tail after a checkpoint that reaches back into the whole log (a user scoring old answers)."""
    rng = np.random.default_rng(seed)
    picked = rng.choice(decisions, size=min(count, decisions), replace=False)
    store.record_outcomes(
        [OutcomeRecord(f"d{index}", "user:late", float(index % 2)) for index in picked]
    )


def build(store: Any, every: int, namespace: str = NAMESPACE) -> tuple[Engine, float]:
    """An engine on `store` (the stand-in model, no search), and the seconds its construction
    (load and replay) took; `engine_writes` measures its recording through the same engine."""
    settings = Settings(namespace=namespace, store_url="memory", policy_seed=1)
    started = time.perf_counter()
    engine = Engine(
        llm=ScriptedLLM(canned_script),
        searcher=InMemorySearcher([]),
        store=store,
        templates=load_templates(),
        embedder=EMBEDDER,
        policy_factory=build_policy_factory(settings),
        config=EngineConfig(namespace=namespace, checkpoint_every=every),
    )
    return engine, time.perf_counter() - started


class WithoutCheckpoints:
    """The store as one that has never heard of checkpoints: the engine replays everything."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def latest_checkpoint(self, *_: object) -> None:
        return None

    def save_checkpoint(self, *_: object) -> None:
        return None


def arms_of(engine: Engine) -> dict[tuple[str, str], tuple[float, float | None, int]]:
    return {
        (row.role, row.arm_id): (row.pulls, row.mean_reward, row.outcomes) for row in engine.arms()
    }


class CountingReads:
    """The store, counting the outcomes `outcomes_of` hands out (the evidence a replay reads)."""

    def __init__(self, store: SqlStore) -> None:
        self._store = store
        self.read = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def outcomes_of(self, *decision_ids: str, **options: Any) -> Any:
        outcomes = self._store.outcomes_of(*decision_ids, **options)
        self.read += len(outcomes)
        return outcomes


def measure(
    store: SqlStore, outcomes: int, tail: int, repeats: int, per_decision: int = 1
) -> dict[str, Any]:
    """Fill the store, then time a full replay and a checkpoint start, side by side. With
    `per_decision` above 1 the tail is late scores on decisions all over the log."""
    started = time.perf_counter()
    fill(store, outcomes, per_decision=per_decision)
    fill_s = time.perf_counter() - started
    # The first full replay also writes the checkpoint (every=1: due at once); then the tail.
    build(store, every=1)
    if per_decision > 1:
        tail = min(tail, outcomes // per_decision)  # a late score per decision at most
        late_scores(store, outcomes // per_decision, tail)
    else:
        fill(store, tail, first=outcomes)
    counted = CountingReads(store)
    # A full replay once (with many outcomes a decision, minutes long): the statistics every
    # checkpoint start must match.
    replayed, seconds = build(WithoutCheckpoints(store), every=0)
    full, restored, checked = [seconds], [], None
    for _ in range(repeats):
        counted.read = 0
        engine, seconds = build(counted, every=0)
        restored.append(seconds)
        checked = arms_of(engine) == arms_of(replayed)
        if not checked:
            raise SystemExit("a checkpoint start differs from a full replay: a bug")
    saved = store.latest_checkpoint(NAMESPACE, engine._book._checkpoints._fingerprint)
    return {
        "outcomes": outcomes + tail,
        "tail": tail,
        "per_decision": per_decision,
        "checkpoint_bytes": len(json.dumps(saved.state)) if saved is not None else 0,
        "fill_s": round(fill_s, 1),
        "full_replay_s": round(statistics.median(full), 3),
        "checkpoint_s": round(statistics.median(restored), 3),
        "evidence_read": counted.read,
        "same_statistics": checked,
    }


@contextmanager
def sqlite_store() -> Iterator[SqlStore]:
    with (
        tempfile.TemporaryDirectory(prefix="thinkpath-startup-") as folder,
        SqlStore(f"sqlite:///{Path(folder) / 'store.sqlite3'}") as store,
    ):
        yield store


@contextmanager
def postgres_store(url: str) -> Iterator[SqlStore]:
    from engine.adapters.store.sandbox import temporary_schema  # noqa: PLC0415 - only with --postgres

    with (
        temporary_schema(url, prefix="thinkpath_startup") as schema_url,
        SqlStore(schema_url) as store,
    ):
        yield store


def measure_all(sizes: list[int], args: argparse.Namespace) -> dict[str, Any]:
    """Every size on fresh stores, SQLite then (with `--postgres`) PostgreSQL."""
    results: dict[str, Any] = {"sqlite": [], **({"postgresql": []} if args.postgres else {})}
    for outcomes in sizes:
        with sqlite_store() as store:
            results["sqlite"].append(
                measure(store, outcomes, args.tail, args.repeats, args.per_decision)
            )
        if args.postgres:
            with postgres_store(args.postgres) as store:
                results["postgresql"].append(
                    measure(store, outcomes, args.tail, args.repeats, args.per_decision)
                )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outcomes", default="1000000", help="one size, or several: 1000,1000000")
    parser.add_argument("--tail", type=int, default=500, help="outcomes after the checkpoint")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--per-decision",
        type=int,
        default=1,
        help="outcomes per decision (a checker's, then users'); above 1 the tail is late scores",
    )
    parser.add_argument("--postgres", help="also measure this PostgreSQL URL (a fresh schema)")
    parser.add_argument("--before", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--json", type=Path, help="write the results here as JSON")
    parser.add_argument("--one-line", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(size) for size in str(args.outcomes).split(",")]
    if args.before is None:
        results = measure_all(sizes, args)
    else:
        from experiments.benchmarks.checkouts import HERE, run_on  # noqa: PLC0415 - only here

        results = {"before": {}, "after": {}}
        for size in sizes:
            options = [f"--outcomes={size}", f"--tail={args.tail}", f"--repeats={args.repeats}"]
            options += [f"--per-decision={args.per_decision}"]
            options += [f"--postgres={args.postgres}"] if args.postgres else []
            for name, checkout in (("before", args.before.resolve()), ("after", HERE)):
                for store, rows in run_on(checkout, __file__, [*options, "--one-line"]).items():
                    results[name].setdefault(store, []).extend(rows)
                print(name, size, json.dumps(results[name]), flush=True)
    print(json.dumps(results, indent=None if args.one_line else 2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
