"""Runs one decision's stages in order and assembles the `Decision`.

query -> kind (a named task, the nearest known kind, or a new one)
      -> model (the model role's draw for the kind, or the client's pin): every later call runs
         on it
      -> options (the rule reader; where it refuses and the question shows a sign of a written
         set, 1 call to the option reader model, `EngineConfig.option_reader_model`)
      -> seed (search + 1 call) -> seed check (no call; rebuild once, then flag)
      -> candidates -> rating (1 call, only with cold arms) -> detour (1 call, only when triggered)
      -> path and tool selection -> tool run (the program tool: 1 call) -> answer (the path's
      procedure: 1 to 3 calls) -> checker, or referee (1 call, where its weight is above 0)

Economy: a warm decision with a single-call path spends at most 3 calls (seed, answer, referee)
because structured calls retry only in a decision that is already off the warm path, and then
only while the decision stays within its worst case (see `engine.orchestration.run_state`); a
question the rule reader refused but that shows a sign of a written set adds one optional call
to read its options (made only while the answer stays affordable). A
path's procedure may spend more answer calls (self-consistency 3, plan-and-solve 2, a program up
to 3: `engine.domain.procedures`), within what the budget leaves after the referee's call (when
it will judge: `Scorer.referee_calls`); the program tool adds one call before the answer.
Optional stages are skipped with a "budget_stop" when the call budget could no longer pay for
the answer. Every LLM or retrieval
fault is caught at its stage, reported, and the decision goes on degraded.

Each stage yields a report of each step as it finishes (`engine.domain.trace`); `Pipeline.run`
alone adds them up into the decision's trace and cost, and gives each stage a `RunState` value
that counts what the stages before it spent, so the budget still refuses an overrunning call
before the model is called.
"""

import dataclasses
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from engine.domain.announced_llm import announced
from engine.domain.budget import Budget
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from engine.domain.config import EngineConfig
from engine.domain.guarded_llm import GuardedLLM
from engine.domain.models import Choice, Decision, QueryKind, Seed, ToolRun
from engine.domain.options import NoOptions, Options, understand_options
from engine.domain.ports import LLM, DecisionListener, OptionScorer, Searcher, ToolBox
from engine.domain.records import NO_TOOL, PROGRAM_TOOL, ChatOptions, PathDefinition
from engine.domain.trace import LLM_FAULTS, Steps, report, start
from engine.orchestration.arm_book import ArmBook
from engine.orchestration.choosing import Choices, Chooser
from engine.orchestration.kind_book import KindBook
from engine.orchestration.learner import NO_SEED, SEED
from engine.orchestration.query_steps import kind_step, options_step
from engine.orchestration.run_state import UNLIMITED, Assembly, RunState, run_stage
from engine.orchestration.scoring import Checker, Score, Scorer
from engine.orchestration.seeding import Seeder
from engine.orchestration.views import ModelChoice, SeedChoice
from engine.stages import procedures, program, tools
from engine.stages.option_procedures import OptionSettings
from engine.stages.option_reading import read_by_model, worth_a_call

__all__ = ["Checker", "Draft", "Pipeline"]

T = TypeVar("T")


@dataclass(frozen=True)
class Draft:
    """A finished decision plus the outcomes the facade must record for it."""

    decision: Decision
    outcomes: list[Score] = field(default_factory=list)
    # The seed role's arm, credited with what the answer saw ("seed": a brief; a brief that came
    # out weak credits "no_seed"), and the probability of the seed role's own draw (1.0 where
    # the seed is always built).
    seed_arm: str = "seed"
    seed_propensity: float = 1.0


class Pipeline:
    """The stages wired to their collaborators; `run` makes one decision and never raises for
    an LLM, retrieval or tool fault."""

    def __init__(
        self,
        *,
        models: ModelCatalogue,
        searcher: Searcher,
        toolbox: ToolBox | None,
        program_toolbox: ToolBox | None = None,
        kinds: KindBook,
        book: ArmBook,
        config: EngineConfig,
    ) -> None:
        # Each model behind its guard once; its option scorer (option likelihood) is None for a
        # hosted model, where that arm is no candidate.
        self._models = ModelCatalogue(
            [
                ModelEntry(entry.id, GuardedLLM(entry.llm), entry.option_scorer)
                for entry in models.values()
            ]
        )
        # The program tool's writer (`EngineConfig.program_model`); None: the decision's model.
        self._program_model = self._models.get(config.program_model or "")
        # The second reader of options (`EngineConfig.option_reader_model`); None: rules alone.
        self._option_reader = self._models.get(config.option_reader_model or "")
        self._toolbox = toolbox
        self._program_toolbox = program_toolbox  # procedures: the program arm's sandbox
        self._kinds = kinds
        self._config = config
        self._seeder = Seeder(searcher, config)
        self._book = book
        self._scorer = Scorer(config, book)
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
        task: str | None = None,
        checked_by: str | None = None,
        options: Options | NoOptions | None = None,
        model: str | None = None,
    ) -> Draft:
        """Make one decision for `query`; the facade persists it and its outcomes.

        With a listener, the answer streams to its `on_token`. `chat` adds a chat client's
        context to the answer prompt; `force_path` is a live path arm the caller names; `task`
        names the kind of query (else the kind is found from the query's embedding);
        `checked_by`, the client source whose expected answer the checker holds; `options`, the
        answers the client offers or the question was read to offer (None: read them here);
        `model`, a catalogue model the client pins (checked by the facade).
        """
        started = start()
        match = self._kinds.find(query, task=task)  # a bad task name raises before any work
        model_choice = self._book.model_choice(match.kind.anchor, pinned=model)
        entry = self._models[model_choice.pick.arm]
        first = RunState(
            query,
            match.kind.anchor,
            announced(entry.llm, listener),  # a progress display names each call as it starts
            budget or self._config.budget,
        )
        assembly = Assembly(first, listener)
        kind = assembly.take(lambda _run: kind_step(match, started))
        assembly.take(lambda _run: _model_step(model_choice, started))
        offered = assembly.take(lambda run: self._options(run, query, options, listener))
        seed_model, seed_choice = assembly.take(lambda run: self._seed(run, kind))
        referee_calls = self._scorer.referee_calls(first.context, checker)
        choices = assembly.take(
            lambda run: self._chooser.choose(
                run,
                referee_calls=referee_calls,
                force_path=force_path,
                kind=kind.id,
                first_of_kind=kind.new,
                offers_options=offered is not None,
                can_score_options=entry.option_scorer is not None,
            )
        )
        program_llm = announced(self._program_model.llm, listener) if self._program_model else None
        tool_run, refused, direct = assembly.take(
            lambda run: self._run_tools(run, choices, program_llm)
        )
        answer_text = (
            assembly.take(lambda _run: self._direct(tool_run, listener, chat, offered))
            if direct
            else None
        )
        if answer_text is None:
            answer_text = assembly.take(
                lambda run: self._answer(
                    run,
                    choices.path_definition,
                    brief=seed_model.brief,
                    tool_run=tool_run,
                    listener=listener,
                    chat=chat,
                    reserve=referee_calls,  # procedures: leave the referee its call
                    options=offered,
                    option_scorer=entry.option_scorer,
                )
            )
        outcomes: list[Score] = []
        if refused:
            outcomes.append(Score("tool", 0.0))  # a tool's failure is an outcome for that tool
        if answer_text is not None:  # the facade records the scores; every role learns from them
            text = answer_text  # a str: mypy keeps no narrowing inside a lambda
            outcomes.extend(
                assembly.take(
                    lambda run: self._scorer.score(
                        run, text, checker, warm=not choices.explored, checked_by=checked_by
                    )
                )
            )
        decision = Decision(
            id=decision_id or uuid.uuid4().hex,
            namespace=self._config.namespace,
            created_at=datetime.now(UTC),
            query=query,
            kind=kind,
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
            model=Choice(
                role="model",
                arm_id=model_choice.pick.arm,
                propensity=model_choice.pick.propensity,
                reason=model_choice.pick.reason,
            ),
            tool_run=tool_run,
            answer=answer_text,
            trace=list(assembly.trace.steps),
            cost=assembly.trace.cost,
            degraded=bool(assembly.trace.degraded_reasons),
            degraded_reasons=list(assembly.trace.degraded_reasons),
        )
        return Draft(
            decision,
            outcomes,
            seed_arm=SEED if seed_model.brief is not None else NO_SEED,
            seed_propensity=_draw_probability(seed_choice),
        )

    def _options(
        self,
        run: RunState,
        query: str,
        given: Options | NoOptions | None,
        listener: DecisionListener | None,
    ) -> Steps[Options | None]:
        """The options step: the rule reader's (or the client's) options; where the rule reader
        refused and the question shows a sign of a written set (`worth_a_call`), the option
        reader model reads it once, an optional call (skipped when the answer could no longer
        be paid for; a fault leaves the rule reader's refusal and degrades nothing)."""
        started = start()
        found = given if given is not None else understand_options(query)
        reader = self._option_reader
        cue = worth_a_call(query) if isinstance(found, NoOptions) and reader else None
        if reader is None or cue is None or not isinstance(found, NoOptions):
            return (yield from options_step(query, found, started=started))
        second: dict[str, object] = {"reader": "model", "model": reader.id, "cue": cue}
        second["rules"] = found.reason
        if not run.can_afford_optional():
            second["model_skipped"] = "no call left for reading options besides the answer"
            return (yield from options_step(query, found, started=started, second=second))
        meter = dataclasses.replace(run, llm=announced(reader.llm, listener)).meter()
        try:
            read, record = read_by_model(
                meter, query, timeout_s=self._config.llm_timeout_s, model=reader.id
            )
        except LLM_FAULTS as error:
            second["fault"] = f"{type(error).__name__}: {error}"
            read, record = found, {}
        return (
            yield from options_step(
                query, read, started=started, second={**second, **record}, cost=meter.cost
            )
        )

    def _seed(self, run: RunState, kind: QueryKind) -> Steps[tuple[Seed, SeedChoice | None]]:
        """The seed, when the seed role (learnt per kind of query, in the arm book) wants one."""
        if not self._config.seed_gate:
            return (yield from self._seeder.build(run)), None
        choice = self._book.seed_choice(run.context, first_of_kind=kind.new)
        if choice.use:
            return (yield from self._seeder.build(run)), choice
        yield report(
            "seed",
            "skipped",
            start(),
            outputs={
                "why": f"the first decision of the new kind {kind.label!r} makes no extra call"
                if kind.new
                else f"the seed gate chose no seed for queries of the kind {kind.label!r}",
                "p_seed": choice.probability,
            },
        )
        return Seed(), choice

    def _direct(
        self,
        tool_run: ToolRun | None,
        listener: DecisionListener | None,
        chat: ChatOptions | None,
        options: Options | None,
    ) -> Steps[str | None]:
        """A direct arm's answer: the fully parsed result itself, with no answer call; None
        (the model answers) when the result was not read whole, when a chat client's own
        instructions or earlier turns shape the answer (a bare value would ignore them), or
        when the question offers options and the result is none of them (`tools.as_option`)."""
        started = start()
        text = tools.direct_answer(tool_run)
        why = None
        if text is None or tool_run is None:
            why = "the tool's result was not read whole, so the model answers"
        elif chat is not None and (chat.instructions or chat.history):
            why = "the chat's instructions or earlier turns shape the answer, so the model answers"
        elif options is not None:
            text = tools.as_option(tool_run, options)
            if text is None:
                why = "the tool's result is none of the options, so an option path answers"
        if why is not None or text is None or tool_run is None:
            yield report("answer_direct", "skipped", started, outputs={"why": why})
            return None
        if listener is not None:
            listener.on_token(text)
        yield report(
            "answer",
            "done",
            started,
            inputs={"tool": tool_run.tool, "direct": True},
            outputs={"answer": text, "provenance": tool_run.provenance},
        )
        return text

    def _run_tools(
        self, run: RunState, choices: Choices, program_llm: LLM | None = None
    ) -> Steps[tuple[ToolRun | None, bool, bool]]:
        """Run the chosen tool; when it fails or refuses, fall back at once to the next tool.

        The decision's tool choice stays the policy's pick (its refusal is that arm's "tool"
        outcome of 0); each fallback is traced with its probability given the tools already
        tried, and with the probability of the whole sequence taken (the pick's propensity
        times each fallback's), for off-policy evaluation of the sequence.
        """
        tool, direct = tools.split_arm(choices.tool.arm)
        tool_run = yield from self._run_tool(run, tool, choices.tool_argument, program_llm)
        if tool_run is None or tool_run.ok:
            return tool_run, False, direct
        tried, sequence = [choices.tool.arm], choices.tool.propensity
        while tool_run is not None and not tool_run.ok:
            started = start()
            # An arm of a tool already tried ("calculator+direct" after "calculator") would
            # refuse again: it is not drawn.
            untried = tools.fallback_candidates(
                choices.tool_probabilities, tried, choices.cold_tools
            )
            arm, probability = self._chooser.fallback_tool(untried, tried)
            tried.append(arm)
            sequence *= probability
            yield report(
                "tool_fallback",
                "chose_by_posterior",
                started,
                inputs={"refused": tried[-2], "why": tool_run.error},
                outputs={
                    "arm": arm,
                    "propensity": probability,
                    "untried": sorted(untried),  # what it drew from: "none" alone, none left
                    "sequence": list(tried),
                    "sequence_propensity": sequence,
                },
            )
            tool, direct = tools.split_arm(arm)
            tool_run = yield from self._run_tool(run, tool, None, program_llm)
        return tool_run, True, direct

    def _run_tool(
        self, run: RunState, tool: str, argument: str | None, program_llm: LLM | None = None
    ) -> Steps[ToolRun | None]:
        if tool == NO_TOOL or self._toolbox is None:
            return None
        started = start()
        if tool == PROGRAM_TOOL:  # procedures: the model writes the program, then it runs
            # on the program model where there is one, metered against the same budget
            if program_llm is None or self._program_model is None:
                return (yield from self._run_program_tool(run, self._toolbox, started))
            writer = dataclasses.replace(run, llm=program_llm)
            return (
                yield from self._run_program_tool(
                    writer, self._toolbox, started, self._program_model.id
                )
            )
        argument = argument or tools.default_argument(tool, run.query)
        result = tools.run_tool(self._toolbox, tool, argument, self._config.tool_timeout_s)
        if result is None:
            return None
        yield report(
            "tool",
            "done" if result.ok else "fault",
            started,
            inputs={"tool": tool, "argument": argument},
            outputs={
                "ok": result.ok,
                "output": result.output[:500],
                "provenance": result.provenance,
                "fully_parsed": result.fully_parsed,
            },
            error=result.error,
        )
        return result

    def _run_program_tool(
        self, run: RunState, toolbox: ToolBox, started: float, writer: str | None = None
    ) -> Steps[ToolRun | None]:
        """The program tool: a program call metered against the decision's budget, then the
        sandbox.

        No structured retry: as a tool the program is an optional extra call before the answer,
        and a retry would push a warm decision past its usual call count.
        """
        attempt = yield from run_stage(
            run,
            "tool",
            lambda llm: program.solve_with_program(
                llm,
                toolbox,
                run.query,
                tool_timeout_s=self._config.tool_timeout_s,
                llm_timeout_s=self._config.llm_timeout_s,
                retries=0,
            ),
            started=started,
            optional="no call left for a program besides the answer",
            inputs={"tool": PROGRAM_TOOL, **({"model": writer} if writer else {})},
        )
        ran = attempt.value
        if ran is None:
            return None
        result = ran.tool_run
        yield report(
            "tool",
            "done" if result.ok else "fault",
            started,
            cost=attempt.cost,
            inputs={
                "tool": PROGRAM_TOOL,
                "argument": ran.program,
                **({"model": writer} if writer else {}),
            },
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
        options: Options | None = None,
        option_scorer: OptionScorer | None = None,
    ) -> Steps[str | None]:
        arm = path.arm_id
        started = start()
        inputs: dict[str, object] = {"path": arm}
        if chat is not None:  # what the prompt carried besides the query, for the record
            inputs["chat_turns"] = len(chat.history)
            inputs["instructions"] = chat.instructions is not None
        # procedures: the path's procedure answers (`engine.stages.procedures`); its cost and how
        # it answered (samples and their agreement, plan, program) go into the answer's trace.
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
            options=None if options is None else OptionSettings(options, option_scorer),
        )
        attempt = yield from run_stage(
            run,
            "answer",
            lambda llm: procedures.run_procedure(llm, path, run.query, settings),
            started=started,
            inputs=inputs,
        )
        result = attempt.value
        if result is None:
            return None
        spent = attempt.cost + result.cost
        outputs: dict[str, object] = {
            "answer": result.text,
            **result.outputs,
            "cost": {
                "calls": spent.calls,
                "tokens": spent.total_tokens,
                "seconds": round(spent.seconds, 6),
            },
        }
        yield report("answer", "done", started, cost=spent, inputs=inputs, outputs=outputs)
        return result.text


def _model_step(choice: ModelChoice, started: float) -> Steps[None]:
    """The model the decision runs on, and what its draw read, for the trace and the card."""
    pick = choice.pick
    if pick.reason == "forced":
        why = "pinned by the client"
    elif len(choice.prob_best) <= 1:
        why = "the only model in the catalogue"
    elif pick.arm in choice.cold:
        why = "still new for this kind: explored (a new kind starts from the kinds like it)"
    elif choice.charges:
        why = "drawn from the kind's posterior, each model less its seconds at the draw price"
    else:
        why = "drawn from the kind's posterior"
    yield report(
        "model",
        pick.reason,
        started,
        outputs={
            "model": pick.arm,
            "propensity": pick.propensity,
            "why": why,
            "prob_best": dict(choice.prob_best),
            "propensities": dict(choice.propensities),
            "expected_seconds": dict(choice.seconds),
            "charges": dict(choice.charges),
        },
    )


def _draw_probability(choice: SeedChoice | None) -> float:
    """The probability the seed role gave to what it drew (1.0 with the seed gate off)."""
    if choice is None:
        return 1.0
    return choice.probability if choice.use else round(1.0 - choice.probability, 4)
