"""Runs one decision's stages in order and assembles the `Decision`.

query -> features -> seed (search + 1 call) -> seed check (no call; rebuild once, then flag)
      -> candidates -> rating (1 call, only with cold arms) -> detour (1 call, only when triggered)
      -> path and tool selection -> tool run (the program tool: 1 call) -> answer (the path's
      procedure: 1 to 3 calls) -> checker, or referee (1 call)

Economy: a warm decision with a single-call path spends at most 3 calls (seed, answer, referee)
because structured calls retry only in a decision that is already off the warm path, and then
only while the decision stays within its worst case (see `engine.orchestration.run_state`). A
path's procedure may spend more answer calls (self-consistency 3, plan-and-solve 2, a program up
to 3: `engine.domain.procedures`), within what the budget leaves after the referee's call; the
program tool adds one call before the answer. Optional stages are skipped with a
"budget_stop" when the call budget could no longer pay for the answer. Every LLM or retrieval
fault is caught at its stage, recorded, and the decision goes on degraded.
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from engine.domain.budget import Budget, MeteredLLM
from engine.domain.config import EngineConfig
from engine.domain.guarded_llm import GuardedLLM
from engine.domain.models import Choice, Decision, Seed, ToolRun
from engine.domain.ports import LLM, DecisionListener, Featurizer, Searcher, ToolBox
from engine.domain.records import NO_TOOL, PROGRAM_TOOL, ChatOptions, PathDefinition
from engine.domain.trace import TraceRecorder
from engine.orchestration.arm_book import ArmBook
from engine.orchestration.choosing import Chooser
from engine.orchestration.run_state import UNLIMITED, RunState, run_stage
from engine.orchestration.scoring import Checker, Score, Scorer
from engine.orchestration.seeding import Seeder
from engine.stages import procedures, program, tools
from engine.stages.seed_gate import SeedGate

__all__ = ["Checker", "Draft", "Pipeline"]


@dataclass(frozen=True)
class Draft:
    """A finished decision plus the outcomes the facade must record for it."""

    decision: Decision
    outcomes: list[Score] = field(default_factory=list)


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
        program_toolbox: ToolBox | None = None,
        family_of: Callable[[str], str] | None,
        book: ArmBook,
        config: EngineConfig,
    ) -> None:
        self._llm = GuardedLLM(llm)
        self._toolbox = toolbox
        self._program_toolbox = program_toolbox  # procedures: the program arm's sandbox
        self._featurizer = featurizer
        self._family_of = family_of
        self._config = config
        self._seeder = Seeder(searcher, config)
        self._seed_gate = SeedGate(config.seed)
        self._scorer = Scorer(config)
        self._chooser = Chooser(book=book, toolbox=toolbox, config=config)

    def run(
        self,
        query: str,
        *,
        checker: Checker | None,
        budget: Budget | None,
        listener: DecisionListener | None = None,
        chat: ChatOptions | None = None,
        force_path: str | None = None,
        decision_id: str | None = None,
    ) -> Draft:
        """Make one decision for `query`; the facade persists it and its outcomes.

        With a listener, the answer streams to its `on_token`. `chat` adds a chat client's
        context to the answer prompt; `force_path` is a live path arm the caller names.
        """
        meter = MeteredLLM(self._llm, budget or self._config.budget)  # one meter per decision
        features = np.asarray(self._featurizer(query), dtype=float)
        trace = TraceRecorder(listener, calls_so_far=lambda: meter.cost.calls)
        run = RunState(query, meter, trace, [float(x) for x in features])
        family = self._family_of(query) if self._family_of else "all"
        seed_model = self._seed(run, family)
        choices = self._chooser.choose(
            run, referee_calls=1 if checker is None else 0, force_path=force_path
        )
        tool_run = self._run_tool(run, choices.tool.arm, choices.tool_argument)
        answer_text = self._answer(
            run,
            choices.path_definition,
            brief=seed_model.brief,
            tool_run=tool_run,
            listener=listener,
            chat=chat,
            reserve=1 if checker is None else 0,  # procedures: leave the referee its call
        )
        outcomes: list[Score] = []
        if tool_run is not None and not tool_run.ok:
            outcomes.append(Score("tool", 0.0))  # a tool's failure is an outcome for that tool
        if answer_text is not None:
            scored = self._scorer.score(
                run, answer_text, checker, family=family, warm=not choices.explored
            )
            outcomes.extend(scored)
            for score in scored:  # the seed gate learns from the answer's own score
                weight = (
                    self._config.weight_for(score.source) if score.weight is None else score.weight
                )
                self._seed_gate.learn(
                    family,
                    saw_brief=seed_model.brief is not None,
                    reward=score.reward,
                    weight=weight,
                )
        decision = Decision(
            id=decision_id or uuid.uuid4().hex,
            namespace=self._config.namespace,
            created_at=datetime.now(UTC),
            query=query,
            family=family if self._family_of else None,
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
            cost=meter.cost,
            degraded=bool(run.trace.degraded_reasons),
            degraded_reasons=run.trace.degraded_reasons,
        )
        return Draft(decision, outcomes)

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
        if tool == PROGRAM_TOOL:  # procedures: the model writes the program, then it runs
            return self._run_program_tool(run, self._toolbox, started)
        argument = argument or tools.default_argument(tool, run.query)
        result = tools.run_tool(self._toolbox, tool, argument, self._config.tool_timeout_s)
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

    def _run_program_tool(self, run: RunState, toolbox: ToolBox, started: float) -> ToolRun | None:
        """The program tool: a program call through the decision's meter, then the sandbox.

        No structured retry: as a tool the program is an optional extra call before the answer,
        and a retry would push a warm decision past its usual call count.
        """
        ran = run_stage(
            run,
            "tool",
            lambda: program.solve_with_program(
                run.meter,
                toolbox,
                run.query,
                tool_timeout_s=self._config.tool_timeout_s,
                llm_timeout_s=self._config.llm_timeout_s,
                retries=0,
            ),
            started=started,
            optional="no call left for a program besides the answer",
            inputs={"tool": PROGRAM_TOOL},
        )
        if ran is None:
            return None
        result = ran.tool_run
        run.trace.add(
            "tool",
            "done" if result.ok else "fault",
            started,
            inputs={"tool": PROGRAM_TOOL, "argument": ran.program},
            outputs=ran.trace_outputs(),
            error=result.error,
        )
        return result

    def _answer(
        self,
        run: RunState,
        path: PathDefinition,
        *,
        brief: str | None,
        tool_run: ToolRun | None,
        listener: DecisionListener | None,
        chat: ChatOptions | None,
        reserve: int,
    ) -> str | None:
        arm = path.arm_id
        started = run.trace.start()
        inputs: dict[str, object] = {"path": arm}
        if chat is not None:  # what the prompt carried besides the query, for the record
            inputs["chat_turns"] = len(chat.history)
            inputs["instructions"] = chat.instructions is not None
        # procedures: the path's procedure answers (`engine.stages.procedures`); its cost and how
        # it answered (samples and their agreement, plan, program) go into the answer's trace.
        before = run.meter.cost
        settings = procedures.AnswerSettings(
            max_tokens=self._config.answer_max_tokens,
            timeout_s=self._config.llm_timeout_s,
            brief=brief,
            tool_run=tool_run,
            chat=chat,
            on_text=listener.on_token if listener is not None else None,
            calls_left=None if run.calls_left >= UNLIMITED else run.calls_left - reserve,
            toolbox=self._program_toolbox,
            tool_timeout_s=self._config.tool_timeout_s,
        )
        result = run_stage(
            run,
            "answer",
            lambda: procedures.run_procedure(run.meter, path, run.query, settings),
            started=started,
            inputs=inputs,
        )
        if result is None:
            return None
        text = result.text
        spent = run.meter.cost
        outputs: dict[str, object] = {
            "answer": text,
            **result.outputs,
            "cost": {
                "calls": spent.calls - before.calls,
                "tokens": spent.total_tokens - before.total_tokens,
                "seconds": round(spent.seconds - before.seconds, 6),
            },
        }
        run.trace.add("answer", "done", started, inputs=inputs, outputs=outputs)
        return text
