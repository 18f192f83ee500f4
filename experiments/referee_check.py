"""Does the referee's verdict validate within its token budget? And does it separate right from
wrong? Measured on held-out answers of the bare model and every forced template.

    python -m experiments.referee_check --home DIR [--model local/smollm2] [--per-family 7]
        [--templates direct_answer,spell_it_out,...]

Answers and verdicts go through the online evaluation's request cache (`<home>/online/cache`), so
answers already asked by `thinkpath experiments run online` are free. Prints the share of valid
verdicts and, per family, the referee's agreement and AUC against the exact checker.
"""

import argparse
from collections.abc import Sequence

from engine.adapters.llm.caching import CachingLLM
from engine.domain.records import ChatMessage, LLMRequest, PathDefinition
from engine.errors import LLMError
from engine.settings import load_settings
from engine.stages import referee
from engine.stages.answer import answer_messages
from experiments.heldout import heldout_suite
from experiments.online import Step, static_steps
from experiments.online_report import referee_reliability
from experiments.replay import check_task


def _quiet(_done: int) -> None:
    """No progress bar."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--per-family", type=int, default=7)
    parser.add_argument("--suite-seed", type=int, default=1)
    parser.add_argument(
        "--templates", default="direct_answer,spell_it_out,plan_then_solve,worked_example"
    )
    args = parser.parse_args(argv)
    from engine.compose import build_llm  # noqa: PLC0415 - litellm is slow
    from templates import load_templates  # noqa: PLC0415

    settings = load_settings(home=args.home, model=args.model, store_url="memory")
    inner = build_llm(settings)
    llm = CachingLLM(
        inner, settings.data_dir / "online" / "cache", model=f"{args.model}|stop_early=True"
    )
    wanted = args.templates.split(",")
    templates = [t for t in load_templates() if t.id in wanted]
    tasks = heldout_suite(args.suite_seed, args.per_family).tasks
    answers = static_steps(
        llm, tasks, templates, settings.engine_config().answer_max_tokens, _quiet
    )
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
            text = _answer_text(llm, step, path, settings.engine_config().answer_max_tokens)
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
    print(referee_reliability([judged]))
    return 0


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
