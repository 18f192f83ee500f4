"""The outcome log's two hot reads, compiled once: a namespace's outcomes after a seq
(`outcomes_since`), and every outcome of some decisions (`outcomes_of`).

Both run on the driver's own cursor (`engine.adapters.store.driver`). The second names its
decisions in an `IN` list, for which a statement is compiled per size of `ID_SLOTS` and a count
padded to the next size: the learner reads the earlier outcomes of a whole replayed batch in a
statement or a few (one round trip each on PostgreSQL), not one per decision. Asked for the
outcomes' own fields only (`decision_fields=False`), it reads the outcomes table alone: a replay
that folds a decision's earlier scores needs no choices or context, and the join to the decisions
and the parsing of their JSON were two thirds of its read (docs/benchmarks.md, "Start-up").
"""

import threading
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, select

from engine.adapters.store import statistics
from engine.adapters.store.codec import context_from_json
from engine.adapters.store.driver import RawStatement, compile_raw
from engine.adapters.store.tables import DECISIONS, OUTCOMES
from engine.domain.records import LearnedOutcome

__all__ = ["ID_SLOTS", "OutcomeReads"]

# The sizes of the `IN` list a statement is compiled for; the largest is the most decisions one
# statement names, well under every driver's limit on parameters.
ID_SLOTS = (1, 4, 16, 64, 256)


class OutcomeReads:
    """The compiled reads of one store; run them on a cursor the store opens."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._since = compile_raw(_since_query(), engine)
        # by (slots, with the decisions' fields), compiled on first use
        self._of: dict[tuple[int, bool], RawStatement] = {}
        self._lock = threading.Lock()

    def since(
        self, cursor: Any, namespace: str, after_seq: int, limit: int
    ) -> list[LearnedOutcome]:
        """`namespace`'s outcomes with seq > `after_seq`, in seq order, at most `limit`."""
        parameters = {"namespace": namespace, "after_seq": after_seq, "limit": limit}
        cursor.execute(self._since.sql, self._since.bind(parameters))
        return _learned(cursor.fetchall())

    def of(
        self, cursor: Any, decision_ids: Sequence[str], *, decision_fields: bool = True
    ) -> list[LearnedOutcome]:
        """Every outcome of these decisions, in seq order (without `decision_fields`, each with
        its own fields only: see the module). Several statements need not share a snapshot: each
        sees every outcome committed before it, which is what a reader asks for (the earlier
        outcomes of a batch it has read)."""
        ids = list(dict.fromkeys(decision_ids))
        rows: list[Any] = []
        for first in range(0, len(ids), ID_SLOTS[-1]):
            chunk = ids[first : first + ID_SLOTS[-1]]
            slots = next(size for size in ID_SLOTS if size >= len(chunk))
            statement = self._of_statement(slots, decision_fields)
            # the slots past the chunk repeat its last id, which selects nothing more
            padded = chunk + chunk[-1:] * (slots - len(chunk))
            cursor.execute(
                statement.sql, statement.bind({f"id_{n}": value for n, value in enumerate(padded)})
            )
            rows.extend(cursor.fetchall())
        if len(ids) > ID_SLOTS[-1]:  # in seq order across the statements too
            rows.sort(key=lambda row: (row[0], row[1]))
        return _learned(rows) if decision_fields else _scores(rows)

    def _of_statement(self, slots: int, decision_fields: bool) -> RawStatement:
        key = (slots, decision_fields)
        statement = self._of.get(key)
        if statement is None:
            with self._lock:
                statement = self._of.get(key)
                if statement is None:
                    query = _of_query(slots, _outcome_rows() if decision_fields else _score_rows())
                    statement = self._of[key] = compile_raw(query, self._engine)
        return statement


def _learned(rows: Any) -> list[LearnedOutcome]:
    """Rows of (seq, decision, source, reward, weight, namespace, choices, context, kind,
    seconds, prompt tokens, completion tokens)."""
    parsed: dict[str, dict[str, str]] = {}  # decisions share a few distinct choices
    learned = []
    for row in rows:
        seq, decision_id, source, reward, weight, namespace, choices, context, kind = row[:9]
        seconds, prompt_tokens, completion_tokens = row[9:]
        if choices not in parsed:
            parsed[choices] = statistics.choices_of(choices)
        learned.append(
            LearnedOutcome(
                seq=seq,
                decision_id=decision_id,
                namespace=namespace,
                choices=dict(parsed[choices]),
                context=context_from_json(context),
                source=source,
                reward=reward,
                weight=weight,
                kind=kind,
                seconds=seconds,
                tokens=None
                if prompt_tokens is None or completion_tokens is None
                else (prompt_tokens, completion_tokens),
            )
        )
    return learned


def _scores(rows: Any) -> list[LearnedOutcome]:
    """Rows of (seq, decision, source, reward, weight, namespace): outcomes without their
    decision's fields (no choices, context, kind or seconds)."""
    return [
        LearnedOutcome(
            seq=seq,
            decision_id=decision_id,
            namespace=namespace,
            choices={},
            context=None,
            source=source,
            reward=reward,
            weight=weight,
        )
        for seq, decision_id, source, reward, weight, namespace in rows
    ]


def _score_rows() -> Any:
    """Outcomes alone, in `_scores`' column order."""
    return select(
        OUTCOMES.c.seq,
        OUTCOMES.c.decision_id,
        OUTCOMES.c.source,
        OUTCOMES.c.reward,
        OUTCOMES.c.weight,
        OUTCOMES.c.namespace,
    )


def _outcome_rows() -> Any:
    """Outcomes with their decisions' namespace, choices, context, kind, seconds and tokens, in
    `_learned`'s column order: both reads select these."""
    return select(
        OUTCOMES.c.seq,
        OUTCOMES.c.decision_id,
        OUTCOMES.c.source,
        OUTCOMES.c.reward,
        OUTCOMES.c.weight,
        DECISIONS.c.namespace,
        DECISIONS.c.choices,
        DECISIONS.c.context,
        DECISIONS.c.kind,
        DECISIONS.c.seconds,
        DECISIONS.c.prompt_tokens,
        DECISIONS.c.completion_tokens,
    ).join(DECISIONS, DECISIONS.c.decision_id == OUTCOMES.c.decision_id)


def _since_query() -> Any:
    """A namespace's outcomes after a seq."""
    return (
        _outcome_rows()
        .where(
            OUTCOMES.c.namespace == bindparam("namespace"),
            OUTCOMES.c.seq > bindparam("after_seq"),
        )
        .order_by(OUTCOMES.c.seq)
        .limit(bindparam("limit"))
    )


def _of_query(slots: int, rows: Any) -> Any:
    """The outcomes (as `rows` selects them) of the decisions named by id_0 ... id_<slots - 1>,
    in seq order."""
    ids: list[Any] = [bindparam(f"id_{n}") for n in range(slots)]
    named = OUTCOMES.c.decision_id.in_(ids) if slots > 1 else OUTCOMES.c.decision_id == ids[0]
    return rows.where(named).order_by(OUTCOMES.c.seq, OUTCOMES.c.decision_id)
