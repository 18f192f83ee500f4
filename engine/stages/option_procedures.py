"""The procedures that answer with one of a question's options (`OPTION_PROCEDURES`).

Each returns one of the options, in the form the question asks for (its letter, or its text:
"Yes", "0.65"), never free text; the trace keeps the options, the one chosen and how it was
chosen. The options come from the question or from the client (`engine.domain.options`).

- *Constrained choice*: one call whose output is held to the options' texts by a JSON schema
  `enum` (a grammar on the local model, `response_format` on a hosted one). The texts, not the
  letters, are the enum: a small model that must write "Ottawa" is choosing among meanings, one
  that must write "B" is choosing among labels it has to map back to the options first.
- *Option likelihood*: no text is generated; each option is scored by the model's own
  log-likelihood after "Question: ...\\nAnswer:", the way lm-evaluation-harness runs small
  models on choices, calibrated: less its log-likelihood after the content-free
  "Question: N/A\\nAnswer:" (`engine.domain.likelihood`: PMI_DC, Holtzman et al. 2021; the
  likelihood form of Zhao et al. 2021's contextual calibration). Why: the embedded 135M model
  has priors over option texts of its own (one answer of a Yes/No pair, a round number), and
  uncalibrated it chose by them: below chance on five of nine development families, 31.1% on
  their first 10 tasks each; calibrated, 34.4% and three of nine (docs/benchmarks.md,
  "Calibrated option likelihood"). Those figures are in sample: out of sample, on five
  generated option families, calibration chose 4.1 points below the per-token mean on that
  model over 1,200 tasks, with an interval below 0, and 3.0 above it on the 1.5B coder model,
  with one across 0; what it does depends on the family ("Calibration out of sample"). One
  arm, its normalisation replaced: a second scoring arm near the first would cost each kind
  exploration it cannot afford at 30 decisions. The baseline depends on the option texts only;
  the scorer the composition root builds keeps it per option set
  (`engine.adapters.llm.scoring_cache`), so a set seen before (Yes/No, True/False) costs no
  pass, and a new one one pass of a few prompt tokens plus k - 1 per option of k tokens, as many
  as the question's own pass spends on the options.
- *Reason, then choose*: a short free-text reasoning call, then the constrained choice with the
  reasoning shown to it, neutralised like any model text that enters a prompt.
"""

import time
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import BaseModel, create_model

from engine.domain.likelihood import Normalisation, best_option, option_shares
from engine.domain.models import ToolRun
from engine.domain.options import Options, answer_in_form
from engine.domain.ports import LLM, OptionScorer
from engine.domain.records import ChatMessage, Cost, LLMRequest, PathDefinition
from engine.domain.structured import ask_structured
from engine.errors import BudgetExceededError, LLMTimeoutError, LLMUnavailableError
from engine.stages.answer import answer_messages, fill_prompt, tool_block
from engine.stages.prompting import neutralise

__all__ = [
    "CHOOSE_SYSTEM",
    "CONTENT_FREE_PROMPT",
    "REASON_MAX_TOKENS",
    "OptionSettings",
    "run_option_procedure",
]

CHOOSE_SYSTEM = (
    "Choose the one option that answers the question. Reply with a JSON object whose "
    '"answer" is that option, written exactly as listed.'
)
REASON_MAX_TOKENS = 160  # "at most four short sentences", with room to finish the last
NORMALISATION: Normalisation = "calibrated"
# The question's prompt with its content taken out, so that what stays is the model's prior
# over the option texts in this answer slot. Chosen on the development families among
# "Answer:" (Holtzman et al.'s domain premise), "Question: N/A", "Question: [MASK]" and an empty
# question (docs/benchmarks.md, "calibrated option likelihood"), in sample. Out of sample it did
# not hold: on 1,000 tasks the four prompts within 1.2 points of each other, all below the
# per-token mean on SmolLM2, three with an interval below 0 ("Calibration out of sample": learn the
# normalisation per kind, or drop it; a change of more than this constant, so left to be made).
CONTENT_FREE_PROMPT = "Question: N/A\nAnswer:"
NO_SCORER = (
    "this model gives no likelihoods of its own (only the in-process model does), so option "
    "likelihood cannot run"
)


@dataclass(frozen=True)
class OptionSettings:
    """What an option procedure takes besides the question: the options, and the scorer of
    option likelihood (None where the model gives no likelihoods)."""

    options: Options
    scorer: OptionScorer | None = None


def run_option_procedure(
    llm: LLM,
    path: PathDefinition,
    query: str,
    option_settings: OptionSettings,
    *,
    timeout_s: float,
    calls_left: int | None,
    tool_run: ToolRun | None = None,
) -> tuple[str, dict[str, object], Cost]:
    """The chosen option as the answer text, what the trace keeps, and what a scoring pass
    cost (calls made through `llm` are metered there; a scoring pass is not a chat call).
    A tool's successful result goes before the question of a choosing call, as data."""
    options = option_settings.options
    outputs: dict[str, object] = {
        "procedure": path.procedure,
        "options": list(options.texts),
        "letters": list(options.letters),
        "options_from": options.understood,
    }
    extra = Cost()
    if path.procedure == "option_likelihood":
        chosen, scored, extra = _likeliest(
            option_settings.scorer, options, query, timeout_s, calls_left
        )
        outputs.update(scored)
    else:
        reasoning = None
        if path.procedure == "reason_choose":
            listed = f"{_question(options, query)}\n\n{_listing(options)}"
            reasoning = _reason(llm, path, listed, timeout_s, calls_left, outputs)
        found = tool_block(tool_run) if tool_run is not None and tool_run.ok else None
        chosen = _choose(llm, path, options, query, reasoning or found, timeout_s)
    answer = answer_in_form(options, chosen)
    outputs.update({"chosen": answer, "chosen_text": options.texts[chosen]})
    return answer, outputs, extra


def _question(options: Options, query: str) -> str:
    return options.stem or query


def _listing(options: Options) -> str:
    return "Options:\n" + "\n".join(f"- {neutralise(text, 240)}" for text in options.texts)


def _choose(  # noqa: PLR0917 - one private step of two procedures
    llm: LLM,
    path: PathDefinition,
    options: Options,
    query: str,
    before: str | None,
    timeout_s: float,
) -> int:
    """One call held to the options' texts (no retry: the procedure is one call). A
    constrained-choice path words the call with its own prompt, the question and its options
    in its `{query}`; what comes `before` it (reasoning, or a tool's result) replaces that."""
    question = f"{_question(options, query)}\n\n{_listing(options)}"
    if before:
        body = f"Question: {question}\n\n{before}"
    else:
        body, used = fill_prompt(path.prompt, query=question, seed="")
        if "query" not in used:
            body = f"{body}\n\nQuestion: {question}"
    choice_model = _choice_model(options.texts)
    longest = max(len(text) for text in options.texts)
    reply = ask_structured(
        llm,
        (ChatMessage("system", CHOOSE_SYSTEM), ChatMessage("user", body)),
        choice_model,
        purpose="answer",
        max_tokens=min(512, 24 + longest),  # a token is at least one character here
        timeout_s=timeout_s,
        retries=0,
    )
    return options.texts.index(cast("str", reply.answer))  # type: ignore[attr-defined]


def _choice_model(texts: tuple[str, ...]) -> type[BaseModel]:
    # A Literal of the texts is the schema's enum; pydantic validates a reply against it too,
    # so a provider that ignores the schema still cannot answer outside the options.
    answer_type = Literal[texts]  # type: ignore[valid-type]
    return create_model("OptionChoice", answer=(answer_type, ...))


def _reason(  # noqa: PLR0917 - one private step of one procedure
    llm: LLM,
    path: PathDefinition,
    question: str,
    timeout_s: float,
    calls_left: int | None,
    outputs: dict[str, object],
) -> str | None:
    """The path's prompt on the question with its options listed, free text; skipped without
    a call to spare for it."""
    if calls_left is not None and calls_left < 2:
        outputs["reasoning_skipped"] = "no call left for reasoning besides the choice"
        return None
    messages = answer_messages(path, question, None, None)
    request = LLMRequest(
        messages=messages, max_tokens=REASON_MAX_TOKENS, timeout_s=timeout_s, purpose="answer"
    )
    reasoning = llm.complete(request).text.strip()
    outputs["reasoning"] = reasoning[:600]
    return f"Reasoning so far:\n{neutralise(reasoning, 900)}" if reasoning else None


def _likeliest(
    scorer: OptionScorer | None,
    options: Options,
    query: str,
    timeout_s: float,
    calls_left: int | None,
) -> tuple[int, dict[str, object], Cost]:
    """The calibrated likeliest option: the question's pass, then the options' content-free
    baseline (kept by the scorer per option set), one call's worth of the budget for both."""
    if scorer is None:
        raise LLMUnavailableError(NO_SCORER)
    if calls_left is not None and calls_left < 1:
        raise BudgetExceededError("no call left for option likelihood's scoring pass")
    started = time.perf_counter()
    prompt = f"Question: {_question(options, query)}\nAnswer:"
    continuations = [f" {text}" for text in options.texts]
    likelihoods = scorer.score_continuations(prompt, continuations, timeout_s)
    left = timeout_s - (time.perf_counter() - started)
    if left <= 0:
        raise LLMTimeoutError("option likelihood passed its deadline before the baseline")
    baseline = scorer.score_continuations(CONTENT_FREE_PROMPT, continuations, left)
    seconds = time.perf_counter() - started
    shares = option_shares(likelihoods, NORMALISATION, baseline=baseline)
    index = best_option(likelihoods, NORMALISATION, baseline=baseline)
    passes = likelihoods.forward_tokens + baseline.forward_tokens
    outputs: dict[str, object] = {
        "normalisation": NORMALISATION,
        "content_free_prompt": CONTENT_FREE_PROMPT,
        "shares": [round(share, 4) for share in shares],
        "share": round(shares[index], 4),
        "uncalibrated_choice": options.texts[best_option(likelihoods, "token_mean")],
        "baseline_reused": baseline.reused,
        "forward_tokens": passes,
    }
    cost = Cost(calls=1, prompt_tokens=passes, seconds=seconds, cost_usd=0.0)
    return index, outputs, cost
