"""The procedures that answer with one of a question's options (`OPTION_PROCEDURES`).

Each returns one of the options, in the form the question asks for (its letter, or its text:
"Yes", "0.65"), never free text; the trace keeps the options, the one chosen and how it was
chosen. The options come from the question or from the client (`engine.domain.options`).

- *Constrained choice*: one call whose output is held to the options' texts by a JSON schema
  `enum` (a grammar on the local model, `response_format` on a hosted one). The texts, not the
  letters, are the enum: a small model that must write "Ottawa" is choosing among meanings, one
  that must write "B" is choosing among labels it has to map back to the options first.
- *Option likelihood*: no text is generated; each option is scored by the model's own
  log-likelihood after "Question: ...\\nAnswer:", mean per token (`engine.domain.likelihood`
  says why that normalisation), the way lm-evaluation-harness runs small models on choices.
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
from engine.errors import BudgetExceededError, LLMUnavailableError
from engine.stages.answer import answer_messages, fill_prompt, tool_block
from engine.stages.prompting import neutralise

__all__ = ["CHOOSE_SYSTEM", "REASON_MAX_TOKENS", "OptionSettings", "run_option_procedure"]

CHOOSE_SYSTEM = (
    "Choose the one option that answers the question. Reply with a JSON object whose "
    '"answer" is that option, written exactly as listed.'
)
REASON_MAX_TOKENS = 160  # "at most four short sentences", with room to finish the last
NORMALISATION: Normalisation = "token_mean"
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
    if scorer is None:
        raise LLMUnavailableError(NO_SCORER)
    if calls_left is not None and calls_left < 1:
        raise BudgetExceededError("no call left for option likelihood's scoring pass")
    started = time.perf_counter()
    prompt = f"Question: {_question(options, query)}\nAnswer:"
    likelihoods = scorer.score_continuations(
        prompt, [f" {text}" for text in options.texts], timeout_s
    )
    seconds = time.perf_counter() - started
    shares = option_shares(likelihoods, NORMALISATION)
    index = best_option(likelihoods, NORMALISATION)
    passes = likelihoods.prompt_tokens + likelihoods.forward_passes
    outputs: dict[str, object] = {
        "normalisation": NORMALISATION,
        "shares": [round(share, 4) for share in shares],
        "share": round(shares[index], 4),
        "forward_tokens": passes,
    }
    cost = Cost(calls=1, prompt_tokens=passes, seconds=seconds, cost_usd=0.0)
    return index, outputs, cost
