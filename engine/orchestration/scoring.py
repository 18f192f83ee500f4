"""Stage 9, scoring: the exact checker when there is one, else the referee, weighted by how far
the referee has proved reliable for this kind of query.

A checked answer is also judged by the referee in a share `referee_audit` of decisions, when a
call is left: both scores are recorded, the pair measures the referee (the arm book's referee
role), and the checker's, more trusted, is the one that teaches the policies
(`engine.domain.evidence`). The scorer returns what it found; the facade records it.
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from engine.domain.config import EngineConfig
from engine.domain.trace import Steps, budget_stop, fault, report, start
from engine.orchestration.arm_book import ArmBook
from engine.orchestration.run_state import RunState, run_stage
from engine.stages import referee
from learning.streams import stream_seed

Checker = Callable[[str], float]


class Score(NamedTuple):
    """An outcome to record: its source, its reward, and its weight (None: the source's own)."""

    source: str
    reward: float
    weight: float | None = None


# The engine's own random streams, one each (`learning.streams`): the scorer's audit draws never
# move in step with the chooser's.
AUDIT_STREAM = 1


class Scorer:
    """Scores answers; reads the referee's measured reliability from the arm book."""

    def __init__(self, config: EngineConfig, book: ArmBook) -> None:
        self._config = config
        self._book = book
        self._audit_rng = np.random.default_rng(stream_seed(config.seed, AUDIT_STREAM))

    def referee_calls(self, context: Sequence[float], checker: Checker | None) -> int:
        """The calls to leave the referee: 1 where it will judge the answer (no checker, and a
        weight above 0 here: measured, or a prior a user opted in to), else 0, so that a
        referee that will not be asked holds no call back from the stages before it. An audit
        beside a checker is never reserved: it runs only when a call is left."""
        if checker is not None:
            return 0
        return 1 if self._reliability(context).weight > 0.0 else 0

    def _reliability(self, context: Sequence[float]) -> referee.Reliability:
        return self._book.referee_reliability(
            context,
            prior=self._config.weight_for("referee"),
            prior_pairs=self._config.referee_prior_pairs,
        )

    def score(
        self,
        run: RunState,
        text: str,
        checker: Checker | None,
        *,
        warm: bool,
        checked_by: str | None = None,
    ) -> Steps[list[Score]]:
        """The checker's reward when there is a checker, else the referee's (one call).

        `checked_by` names the client whose expected answer the checker holds: the score is
        then recorded as that client's (its claim, which it may correct), not as `checker`,
        and no audit runs beside it: an audit measures the referee against ground truth.
        """
        started = start()
        if checker is not None:
            checked = yield from _check(text, checker, started, checked_by)
            audit = (
                bool(checked)
                and checked_by is None
                and self._audit_rng.random() < self._config.referee_audit
            )
            if audit and run.calls_left >= 1:
                # Read only for an audit, the one use of it beside a checker: measuring it pools
                # every kind's audit pairs, some 50 microseconds a checked decision otherwise.
                reliability = self._reliability(run.context)
                reward = yield from self._judge(run, text, start(), warm=warm, audit=True)
                if reward is not None:  # recorded: the arm book counts the pair from the log
                    # (outranked by the checker, so its weight teaches nothing; a stored weight
                    # must be positive even where the prior is 0)
                    weight = max(referee.MIN_WEIGHT, reliability.weight)
                    checked.append(Score("referee", reward, weight))
            else:
                why = "a checker scored the answer"
                if checked_by is not None:
                    why = f"{checked_by}'s expected answer scored it"
                yield report("referee", "skipped", start(), outputs={"why": why})
            return checked
        reliability = self._reliability(run.context)
        if reliability.weight <= 0.0:  # never measured here, and the prior is 0: not worth a call
            why = "never measured on this kind of query, and THINKPATH_REFEREE_WEIGHT is 0"
            outputs = {"why": why, "reliability": reliability.as_trace()}
            yield report("referee", "skipped", started, outputs=outputs)
            return []
        if run.calls_left < 1:
            yield budget_stop("referee", started, "no call left for the referee")
            return []
        reward = yield from self._judge(
            run, text, started, warm=warm, reliability=reliability.as_trace()
        )
        return [] if reward is None else [Score("referee", reward, reliability.weight)]

    def _judge(
        self,
        run: RunState,
        text: str,
        started: float,
        *,
        warm: bool,
        audit: bool = False,
        reliability: dict[str, object] | None = None,
    ) -> Steps[float | None]:
        """One referee call; its reward, or None after a traced fault."""
        attempt = yield from run_stage(
            run,
            "referee",
            lambda llm: referee.judge(
                llm,
                run.query,
                text,
                retries=run.retries(0, warm=warm),
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            degrades=not audit,
        )
        verdict = attempt.value
        if verdict is None:
            return None
        reward = referee.reward_of(verdict)
        outputs: dict[str, object] = {
            "score": verdict.score,
            "reason": verdict.reason,
            "reward": reward,
        }
        if audit:
            outputs["audit"] = "judged beside the checker, to measure the referee"
        if reliability is not None:
            outputs["reliability"] = reliability
        yield report("referee", "done", started, cost=attempt.cost, outputs=outputs)
        return reward


def _check(
    text: str, checker: Checker, started: float, checked_by: str | None
) -> Steps[list[Score]]:
    def reward_of() -> float:
        reward = float(checker(text))
        if not 0.0 <= reward <= 1.0:  # NaN fails this comparison too
            raise ValueError(f"the checker returned {reward!r}, not a reward in [0, 1]")
        return reward

    # A caller's checker may fail in any way: traced as its fault, and the decision goes on.
    try:
        reward = reward_of()
    except Exception as error:  # reported as the checker's fault, never swallowed
        yield fault("checker", error, started)
        return []
    # Who set the check, for the card and the log: the engine's exact checker, or a client
    # whose expected answer is its own claim, recorded under its own source.
    set_by = checked_by or "checker"
    yield report("checker", "done", started, outputs={"reward": reward, "set_by": set_by})
    return [Score(set_by, reward)]
