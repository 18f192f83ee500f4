"""Runs one decision's stages in order and assembles the `Decision`.

query -> features -> seed (search + 1 call) -> seed check (no call; rebuild once, then flag)
      -> candidates -> rating (1 call, only with cold arms) -> detour (1 call, only when triggered)
      -> path and tool selection -> tool run -> answer (1 call) -> checker, or referee (1 call)

Economy: a warm decision spends at most 3 calls (seed, answer, referee) because structured calls
retry only in a decision that is already off the warm path, and then only while the decision
stays within 6 calls (see `engine.core.run_state`). Optional stages are skipped with a "budget_stop"
when the call budget could no longer pay for the answer. Every LLM or retrieval fault is caught
at its stage, recorded, and the decision goes on degraded.
"""

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from engine.adapters.llm.budget import Budget, MeteredLLM
from engine.adapters.llm.budget import Cost as LLMCost
from engine.adapters.llm.guarded import GuardedLLM
from engine.core.choosing import Chooser
from engine.core.config import EngineConfig
from engine.core.learner import Learner
from engine.core.models import Choice, Cost, Decision, Seed, ToolRun
from engine.core.ports import LLM, DecisionListener, Featurizer, Searcher, ToolBox
from engine.core.records import NO_TOOL, PathDefinition
from engine.core.run_state import RunState
from engine.core.trace import LLM_FAULTS, TraceRecorder
from engine.errors import ThinkPathError
from engine.stages import answer, referee, tools
from engine.stages.seed_gate import SeedGate
from engine.stages.seeding import Seeder

Checker = Callable[[str], float]


@dataclass
class Draft:
    """A finished decision plus what the facade must persist: outcomes to record, new arms."""

    decision: Decision
    outcomes: list[tuple[str, float]] = field(default_factory=list)  # (source, reward)
    new_paths: list[PathDefinition] = field(default_factory=list)
    detour_reason: str | None = None
    weights: dict[str, float] = field(default_factory=dict)  # source -> measured weight


class Pipeline:
    """The stages wired to their collaborators; `run` makes one decision and never raises for
    an LLM, retrieval or tool fault."""

    def __init__(
        self,
        *,
        llm: LLM,
        searcher: Searcher,
        toolbox: ToolBox | None,
        featurizer: Featurizer,
        family_of: Callable[[str], str] | None,
        learner: Learner,
        paths: dict[str, PathDefinition],
        config: EngineConfig,
        lock: threading.RLock,
    ) -> None:
        self._llm = GuardedLLM(llm)
        self._toolbox = toolbox
        self._featurizer = featurizer
        self._family_of = family_of
        self._paths = paths
        self._config = config
        self._seeder = Seeder(searcher, config)
        self._calibration = referee.RefereeCalibration(
            prior=config.weight_for("referee"), prior_pairs=config.referee_prior_pairs
        )
        self._audit_rng = np.random.default_rng(config.seed)
        self._seed_gate = SeedGate(config.seed)
        self._chooser = Chooser(
            learner=learner, paths=paths, toolbox=toolbox, config=config, lock=lock
        )

    def run(
        self,
        query: str,
        *,
        checker: Checker | None,
        budget: Budget | None,
        listener: DecisionListener | None = None,
    ) -> Draft:
        """Make one decision for `query`; the facade persists it and its outcomes."""
        meter = MeteredLLM(self._llm, budget or self._config.budget)  # one meter per decision
        features = np.asarray(self._featurizer(query), dtype=float)
        run = RunState(query, meter, TraceRecorder(listener), [float(x) for x in features])
        family = self._family_of(query) if self._family_of else "all"
        seed_model = self._seed(run, family)
        choices = self._chooser.choose(run, referee_calls=1 if checker is None else 0)
        tool_run = self._run_tool(run, choices.tool.arm, choices.tool_argument)
        answer_text = self._answer(run, choices.path.arm, tool_run)
        outcomes: list[tuple[str, float]] = []
        if tool_run is not None and not tool_run.ok:
            outcomes.append(("tool", 0.0))  # a tool's failure is an outcome for that tool
        weights: dict[str, float] = {}  # source -> weight, where it is not the configured one
        if answer_text is not None:
            scored = self._score(run, answer_text, checker, weights)
            outcomes.extend(scored)
            for source, reward in scored:  # the seed gate learns from the answer's own score
                weight = weights.get(source, self._config.weight_for(source))
                self._seed_gate.learn(
                    family, saw_brief=run.brief is not None, reward=reward, weight=weight
                )
        decision = Decision(
            id=uuid.uuid4().hex,
            namespace=self._config.namespace,
            created_at=datetime.now(UTC),
            query=query,
            family=self._family_of(query) if self._family_of else None,
            context=run.context,
            seed=seed_model,
            candidates=choices.candidates,
            path=Choice(
                role="path",
                arm_id=choices.path.arm,
                propensity=choices.path.propensity,
                reason=choices.path.reason,
            ),
            tool=Choice(
                role="tool",
                arm_id=choices.tool.arm,
                propensity=choices.tool.propensity,
                reason=choices.tool.reason,
            ),
            tool_run=tool_run,
            answer=answer_text,
            trace=run.trace.steps,
            cost=edge_cost(meter.cost),
            degraded=bool(run.trace.degraded_reasons),
            degraded_reasons=run.trace.degraded_reasons,
        )
        return Draft(decision, outcomes, choices.new_paths, choices.detour_reason, weights)

    def _seed(self, run: RunState, family: str) -> Seed:
        """The seed, when the seed gate (learnt per family, `stages.seed_gate`) wants one."""
        if not self._config.seed_gate:
            return self._seeder.build(run)
        choice = self._seed_gate.choose(family)
        if choice.use:
            return self._seeder.build(run)
        run.trace.add(
            "seed",
            "skipped",
            run.trace.start(),
            outputs={
                "why": f"the seed gate chose no seed for {family!r} queries",
                "p_seed": choice.probability,
                "pulls": choice.pulls,
            },
        )
        return Seed()

    def _run_tool(self, run: RunState, tool: str, argument: str | None) -> ToolRun | None:
        if tool == NO_TOOL or self._toolbox is None:
            return None
        started = run.trace.start()
        argument = argument or tools.default_argument(tool, run.query)
        try:
            result = tools.run_tool(self._toolbox, tool, argument, self._config.tool_timeout_s)
        except ThinkPathError as error:  # e.g. a tool taken off the allow-list since it was chosen
            run.trace.fault("tool", error, started, inputs={"tool": tool}, degrades=False)
            return ToolRun(tool=tool, argument=argument, ok=False, error=str(error))
        if result is None:
            return None
        run.trace.add(
            "tool",
            "done" if result.ok else "fault",
            started,
            inputs={"tool": tool, "argument": argument},
            outputs={"ok": result.ok, "output": result.output[:500]},
            error=result.error,
        )
        return result

    def _answer(self, run: RunState, arm: str, tool_run: ToolRun | None) -> str | None:
        started = run.trace.start()
        try:
            text = answer.write_answer(
                run.meter,
                self._paths[arm],
                run.query,
                run.brief,
                tool_run,
                max_tokens=self._config.answer_max_tokens,
                timeout_s=self._config.llm_timeout_s,
            )
        except LLM_FAULTS as error:
            run.trace.fault("answer", error, started, inputs={"path": arm})
            return None
        run.trace.add("answer", "done", started, inputs={"path": arm}, outputs={"answer": text})
        return text

    def _score(
        self, run: RunState, text: str, checker: Checker | None, weights: dict[str, float]
    ) -> list[tuple[str, float]]:
        """The checker's reward when there is a checker, else the referee's (one call), weighted
        by the referee's measured reliability for this kind of query (`referee.RefereeCalibration`).

        A checked answer is also judged by the referee in a share `referee_audit` of decisions,
        when a call is left: the pair measures the referee, and teaches the policies nothing.
        """
        started = run.trace.start()
        family = self._family_of(run.query) if self._family_of else "all"
        if checker is not None:
            checked = self._check(run, text, checker, started)
            audit = bool(checked) and self._audit_rng.random() < self._config.referee_audit
            if audit and run.calls_left >= 1:
                reward = self._judge(run, text, run.trace.start(), audit=True)
                if reward is not None:
                    self._calibration.observe(family, reward, checked[0][1])
            else:
                why = "a checker scored the answer"
                run.trace.add("referee", "skipped", run.trace.start(), outputs={"why": why})
            return checked
        if run.calls_left < 1:
            run.trace.budget_stop("referee", started, "no call left for the referee")
            return []
        reliability = self._calibration.reliability(family)
        weights["referee"] = reliability.weight
        reward = self._judge(run, text, started, reliability=reliability.as_trace())
        return [] if reward is None else [("referee", reward)]

    def _judge(
        self,
        run: RunState,
        text: str,
        started: float,
        *,
        audit: bool = False,
        reliability: dict[str, object] | None = None,
    ) -> float | None:
        """One referee call; its reward, or None after a traced fault."""
        try:
            verdict = referee.judge(
                run.meter,
                run.query,
                text,
                retries=run.retries(0),
                timeout_s=self._config.llm_timeout_s,
            )
        except LLM_FAULTS as error:
            run.trace.fault("referee", error, started, degrades=not audit)
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
        run.trace.add("referee", "done", started, outputs=outputs)
        return reward

    @staticmethod
    def _check(
        run: RunState, text: str, checker: Checker, started: float
    ) -> list[tuple[str, float]]:
        try:
            reward = float(checker(text))
            if not 0.0 <= reward <= 1.0:  # NaN fails this comparison too
                raise ValueError(f"the checker returned {reward!r}, not a reward in [0, 1]")
        except Exception as error:  # a caller's checker may fail in any way: record, go on
            run.trace.fault("checker", error, started)
            return []
        run.trace.add("checker", "done", started, outputs={"reward": reward})
        return [("checker", reward)]


def edge_cost(cost: LLMCost) -> Cost:
    """The meter's cost as the decision reports it; money is None when no call had a price."""
    priced = cost.llm_calls - cost.failed_calls - cost.unpriced_calls
    return Cost(
        calls=cost.llm_calls,
        failed_calls=cost.failed_calls,
        prompt_tokens=cost.prompt_tokens,
        completion_tokens=cost.completion_tokens,
        seconds=round(cost.seconds, 6),
        cost_usd=cost.usd if priced > 0 else None,
        unpriced_calls=cost.unpriced_calls,
    )
