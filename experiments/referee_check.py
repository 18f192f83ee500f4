"""Does the referee's verdict validate within its token budget? And does it separate right from
wrong? Measured on the answers of the bare model and each chosen template to a labelled suite:
the generated held-out families (`--suite heldout`, `experiments.heldout`) or the pinned sample
of public BIG-bench development families (`--suite bigbench`, `experiments.bigbench`).

    python -m experiments.referee_check --home DIR [--model local/smollm2]
        [--suite heldout|bigbench] [--families a,b,c] [--per-family 7] [--suite-seed 1]
        [--templates direct_answer,spell_it_out,...]

`--families` narrows the suite to those families (all of the suite's by default); `--suite-seed`
seeds the generated held-out suite only (the BIG-bench sample is pinned, at most 30 a family).
Answers and verdicts go through the online evaluation's request cache (`<home>/online/cache`), so
answers already asked by `thinkpath experiments run online` are free. Prints the share of valid
verdicts and, per family and over all, the referee's agreement and AUC against the exact checker
(`experiments.online_report.referee_reliability`): what its weight would be measured from
(`engine.stages.referee.reliability`).
"""

import argparse
from collections.abc import Sequence

from engine.adapters.llm.caching import CachingLLM
from engine.domain.ports import LLM
from engine.domain.records import ChatMessage, LLMRequest, PathDefinition, TemplateLike
from engine.errors import ConfigError, LLMError
from engine.settings import Settings, load_settings
from engine.stages import referee
from engine.stages.answer import answer_messages
from experiments.online import Step, static_steps
from experiments.online_experiment import OnlineParams, task_suite
from experiments.online_report import referee_reliability
from experiments.replay import check_task
from experiments.tasks import Task, TaskSuite

DEFAULT_TEMPLATES = "direct_answer,spell_it_out,plan_then_solve,worked_example"


def _quiet(_done: int) -> None:
    """No progress bar."""


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def parser() -> argparse.ArgumentParser:
    """The command line, documented in the module's docstring."""
    parsed = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parsed.add_argument("--home", required=True)
    parsed.add_argument("--model", default="local/smollm2")
    parsed.add_argument("--suite", choices=("heldout", "bigbench"), default="heldout")
    parsed.add_argument(
        "--families", type=_names, default=(), help="comma-separated; default: the whole suite"
    )
    parsed.add_argument("--per-family", type=int, default=7)
    parsed.add_argument("--suite-seed", type=int, default=1, help="the held-out suite's seed")
    parsed.add_argument("--templates", type=_names, default=_names(DEFAULT_TEMPLATES))
    return parsed


def suite_of(args: argparse.Namespace) -> TaskSuite:
    """The labelled tasks the referee judges answers to, chosen as the online evaluation chooses
    them (`experiments.online_experiment.task_suite`); raises `ConfigError` for an unknown
    family or a size the suite does not have."""
    params = OnlineParams(
        suite=args.suite,
        families=args.families,
        per_family=args.per_family,
        suite_seed=args.suite_seed,
    )
    return task_suite(params)


def main(argv: Sequence[str] | None = None, *, llm: LLM | None = None) -> int:
    """Judge every answer and print the referee's reliability; `llm` replaces the configured
    model (a test passes a scripted one), still behind the request cache."""
    command = parser()
    args = command.parse_args(argv)
    try:
        tasks = suite_of(args).tasks
    except (ConfigError, ValueError) as error:  # pydantic's ValidationError is a ValueError
        command.error(str(error))
    from templates import load_templates  # noqa: PLC0415 - only once the arguments hold

    templates = [t for t in load_templates() if t.id in args.templates]
    unknown = sorted(set(args.templates) - {t.id for t in templates})
    if unknown:
        command.error(f"unknown templates {unknown}")
    settings = load_settings(home=args.home, model=args.model, store_url="memory")
    cache = settings.data_dir / "online" / "cache"
    cached = CachingLLM(llm or _model(settings), cache, model=f"{args.model}|stop_early=True")
    max_tokens = settings.engine_config().answer_max_tokens
    print(referee_reliability([judge_answers(cached, tasks, templates, max_tokens)]))
    return 0


def _model(settings: Settings) -> LLM:
    from engine.compose import build_llm  # noqa: PLC0415 - litellm is slow to import

    return build_llm(settings)


def judge_answers(
    llm: CachingLLM,
    tasks: Sequence[Task],
    templates: Sequence[TemplateLike],
    max_tokens: int,
) -> list[Step]:
    """The bare model's and each template's answer to every task, each judged by the referee
    and checked exactly: one step per answer (`referee_valid` False where no verdict came)."""
    answers = static_steps(llm, tasks, templates, max_tokens, _quiet)
    judged: list[Step] = []
    for label, steps in answers.items():
        path = (
            None
            if label == "bare"
            else PathDefinition.from_template(
                next(t for t in templates if f"fixed:{t.id}" == label)
            )
        )
        for step in steps:
            text = _answer_text(llm, step, path, max_tokens)
            try:
                verdict = referee.judge(llm, step.task.query, text, retries=0, timeout_s=60)
            except LLMError:
                judged.append(Step(step.task, step.reward, 1, 0, 0.0, referee_valid=False))
                continue
            score = referee.reward_of(verdict)
            judged.append(
                Step(
                    step.task,
                    check_task(text, step.task),
                    1,
                    0,
                    0.0,
                    referee_score=score,
                    referee_valid=True,
                )
            )
    return judged


def _answer_text(llm: CachingLLM, step: Step, path: PathDefinition | None, max_tokens: int) -> str:
    """The answer text again (a cache hit: `static_steps` asked exactly this request)."""

    messages = (
        (ChatMessage("user", step.task.query),)
        if path is None
        else answer_messages(path, step.task.query, None, None)
    )
    request = LLMRequest(messages=messages, max_tokens=max_tokens, purpose="answer")
    return llm.complete(request).text


if __name__ == "__main__":
    raise SystemExit(main())
