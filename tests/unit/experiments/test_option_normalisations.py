"""The cheap check of option likelihood's normalisations, on a scorer with a known prior."""

from collections.abc import Sequence
from typing import Any

from engine.domain.likelihood import ContinuationScore, Likelihoods
from engine.domain.options import answer_in_form, read_options
from engine.stages.option_procedures import CONTENT_FREE_PROMPT
from experiments.option_families import option_tasks
from experiments.option_normalisations import CONTENT_FREE_PROMPTS, SHIPPED, compare, summarise
from experiments.replay import check_task

TASKS = option_tasks(2)


def right_options() -> dict[str, str]:
    """Each question's prompt, as the check words it, to the text of its right option."""
    right = {}
    for task in TASKS:
        options = read_options(task.query)
        if options is not None:
            prompt = f"Question: {options.stem or task.query}\nAnswer:"
            right[prompt] = next(
                text
                for index, text in enumerate(options.texts)
                if check_task(answer_in_form(options, index), task) == 1.0
            )
    return right


class PriorBiased:
    """A prior of -0.7 a character over every option text; after its question the right
    option gains 0.5 over it. Choosing by the raw likelihood follows the prior (the shortest
    text) unless the right option is also the shortest; subtracting the prior never misses."""

    def __init__(self) -> None:
        self.right = right_options()
        self.prompts: list[str] = []

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        self.prompts.append(prompt)
        right = self.right.get(prompt)
        scores = tuple(
            ContinuationScore(text, -0.7 * len(text) + (0.5 if text.strip() == right else 0), 1)
            for text in continuations
        )
        return Likelihoods(5, scores)


def test_calibration_recovers_every_answer_the_prior_hid_and_scores_each_baseline_once() -> None:
    scorer = PriorBiased()
    rewards = compare(scorer, TASKS)
    read = [read_options(task.query) is not None for task in TASKS]
    for name in CONTENT_FREE_PROMPTS:
        calibrated = rewards[f"calibrated:{name}"]
        assert calibrated == [1.0 if ok else 0.0 for ok in read]
    assert sum(rewards["token_mean"]) < sum(rewards["calibrated:na"])
    option_sets = {frozenset(o.texts) for t in TASKS if (o := read_options(t.query)) is not None}
    baselines = [p for p in scorer.prompts if p in CONTENT_FREE_PROMPTS.values()]
    assert len(option_sets) < sum(read)  # Yes/No comes back: its baselines are scored once
    assert len(baselines) == len(CONTENT_FREE_PROMPTS) * len(option_sets)


def test_the_summary_counts_families_below_chance_and_the_lead_over_token_mean() -> None:
    rewards = compare(PriorBiased(), TASKS)
    summary = summarise(TASKS, rewards)
    calibrated = summary["variants"]["calibrated:na"]
    assert calibrated["minus_token_mean"]["mean"] > 0
    low, high = calibrated["minus_token_mean"]["ci95"]
    assert low <= calibrated["minus_token_mean"]["mean"] <= high
    assert summary["variants"]["token_mean"]["minus_token_mean"]["mean"] == 0
    assert set(calibrated["below_chance"]) <= {t.family for t in TASKS}


def test_the_lead_over_the_shipped_prompt_is_paired_and_every_reward_is_kept() -> None:
    rewards = compare(PriorBiased(), TASKS)
    summary = summarise(TASKS, rewards)
    assert CONTENT_FREE_PROMPTS[SHIPPED.split(":")[1]] == CONTENT_FREE_PROMPT
    assert summary["variants"][SHIPPED]["minus_chosen"] == {"mean": 0.0, "ci95": (0.0, 0.0)}
    token_mean = summary["variants"]["token_mean"]
    assert token_mean["minus_chosen"]["mean"] == -calibrated_lead(summary)
    assert summary["rewards"]["task_ids"] == [task.task_id for task in TASKS]
    assert summary["rewards"]["token_mean"] == [int(v) for v in rewards["token_mean"]]


def calibrated_lead(summary: dict[str, Any]) -> float:
    lead: float = summary["variants"][SHIPPED]["minus_token_mean"]["mean"]
    return lead
