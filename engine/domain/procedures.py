"""What a path arm *does*: its procedure, the calls it may spend, and the self-consistency vote.

A template's wording is one kind of strategy; what is done with it is another. Each path arm
names one procedure (`PathDefinition.procedure`, a template's `procedure` field):

- ``single``: one answer call with the template's prompt (every template before procedures);
- ``bare``: the question alone, no system text, no template: what asking the model directly
  gives, so the engine can always fall back to it;
- ``self_consistency``: `SAMPLES` answers sampled at temperature > 0 with distinct seeds; the
  majority of their extracted answers wins (`vote`);
- ``program``: the model writes a program, the program tool runs it, and the answer is read from
  its output; without a result, one answer call with the template's prompt instead;
- ``plan_solve``: a plan call, then a solve call that follows the plan.

Three answer with one of the options a question offers (`engine.domain.options`), and only
where it offers some (`OPTION_PROCEDURES`; `engine.stages.option_procedures`):

- ``constrained_choice``: one call whose decoding is constrained to the options' texts;
- ``option_likelihood``: no call: the model's own log-likelihood of each option after the
  question (`engine.domain.likelihood`), where a scorer exists (the in-process model);
- ``reason_choose``: a short reasoning call, then a constrained choice that reads it.

The calls each may spend are counted here, once, so that the pipeline's worst case
(`engine.orchestration.run_state.WORST_CASE_CALLS`) and the default budget account for them.

>>> vote(["Answer: 7", "so it is 7", "Answer: 8"]).answer
'7'
>>> vote(["Answer: 7", "so it is 7", "Answer: 8"]).share
0.6666666666666666
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from engine.domain.checkers import extract_final_answer, normalize_text

__all__ = [
    "MAX_PROCEDURE_CALLS",
    "OPTION_PROCEDURES",
    "PROCEDURES",
    "PROCEDURE_CALLS",
    "SAMPLES",
    "SAMPLE_TEMPERATURE",
    "Procedure",
    "Vote",
    "vote",
]

Procedure = Literal[
    "single",
    "bare",
    "self_consistency",
    "program",
    "plan_solve",
    "constrained_choice",
    "option_likelihood",
    "reason_choose",
]
PROCEDURES: tuple[str, ...] = get_args(Procedure)
# The procedures whose answer is always one of the question's options: for no other question.
OPTION_PROCEDURES = frozenset({"constrained_choice", "option_likelihood", "reason_choose"})

# Three samples: the smallest number with a majority that a single stray sample cannot decide,
# and the most a warm decision can take while the engine stays near three calls per decision.
SAMPLES = 3
# Enough spread for samples to disagree where the model is unsure; 0.7 is the value of the
# Self-Consistency paper's smaller-model runs (Wang et al., 2023), and the default of optillm's.
SAMPLE_TEMPERATURE = 0.7

# The most answer-stage calls each procedure may make: the program's is the program call, its one
# structured retry, and the fallback answer call when the program printed no result.
PROCEDURE_CALLS: dict[str, int] = {
    "single": 1,
    "bare": 1,
    "self_consistency": SAMPLES,
    "program": 3,
    "plan_solve": 2,
    "constrained_choice": 1,
    # a scoring pass of the model over the prompt and the options: counted as one call
    "option_likelihood": 1,
    "reason_choose": 2,
}
MAX_PROCEDURE_CALLS = max(PROCEDURE_CALLS.values())


@dataclass(frozen=True)
class Vote:
    """The winner of a self-consistency vote.

    `index` is the sample whose text is the answer, `answer` its extracted answer (None when no
    sample had one), `share` the winner's votes over the samples taken (0.0 when none had an
    answer): a label-free agreement signal, recorded with the decision.
    """

    index: int
    answer: str | None
    share: float
    votes: int
    samples: int


def vote(texts: Sequence[str]) -> Vote:
    """The majority of the samples' extracted answers (`extract_final_answer`), compared after
    `normalize_text`.

    Tie rule: among answers with the most votes, the one sampled first wins. The samples are
    exchangeable, so no order is better informed; the first is the one a budget cut short would
    also have kept, and the rule makes the vote a pure function of the samples. A sample with no
    extractable answer casts no vote; when none has one, the first sample stands, with share 0.

    >>> vote(["Answer: 8", "Answer: 7"]).answer  # a tie: the first sampled wins
    '8'
    >>> vote(["hmm", "Answer: Paris", "answer: paris."]).index
    1
    >>> vote(["no idea at all, sorry, I cannot tell which one of them it might be here"]).share
    0.0
    """
    if not texts:
        raise ValueError("a vote needs at least one sample")
    keys = [_key(text) for text in texts]
    counts = Counter(key for key in keys if key is not None)
    if not counts:
        return Vote(index=0, answer=None, share=0.0, votes=0, samples=len(texts))
    most = max(counts.values())
    index = next(i for i, key in enumerate(keys) if key is not None and counts[key] == most)
    return Vote(
        index=index,
        answer=extract_final_answer(texts[index]),
        share=most / len(texts),
        votes=most,
        samples=len(texts),
    )


def _key(text: str) -> str | None:
    answer = extract_final_answer(text)
    if answer is None:
        return None
    return normalize_text(answer) or None
