"""The paths that answer with an option (issue 26): only for questions that offer options, and
their answer always one of the options, in the form the question asks for."""

import json
from collections.abc import Callable, Sequence

import pytest

from engine.adapters.llm.scoring_cache import CachingOptionScorer
from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.likelihood import ContinuationScore, Likelihoods
from engine.domain.ports import OptionScorer
from engine.domain.procedures import OPTION_PROCEDURES
from engine.domain.records import LLMRequest
from engine.errors import InvalidQueryError
from engine.orchestration.facade import Engine
from engine.settings import load_settings
from engine.stages.option_procedures import CONTENT_FREE_PROMPT, NO_SCORER
from retrieval.embedding import HashingEmbedder

LETTERED = "Which planet is the largest? (A) Mars (B) Jupiter (C) Venus"
YES_NO = "Is 91 a prime number?"
OPEN = "What is the capital of France?"


class FakeScorer:
    """Log-likelihoods by option text after a question, and after the content-free prompt
    (`priors`: flat, -1 a token, where not given); records each prompt it scored."""

    def __init__(
        self,
        logprobs: dict[str, tuple[float, int]],
        priors: dict[str, float] | None = None,
    ) -> None:
        self.logprobs = logprobs
        self.priors = priors or {}
        self.prompts: list[str] = []

    def score_continuations(
        self, prompt: str, continuations: Sequence[str], timeout_s: float
    ) -> Likelihoods:
        self.prompts.append(prompt)
        scores = []
        for text in continuations:
            logprob, tokens = self.logprobs[text.strip()]
            if prompt == CONTENT_FREE_PROMPT:
                logprob = self.priors.get(text.strip(), -1.0 * tokens)
            scores.append(ContinuationScore(text, logprob, tokens))
        return Likelihoods(7, tuple(scores))


def choosing(pick: int) -> Callable[[LLMRequest], str]:
    """A model that, held to an enum, writes its `pick`-th value; else the canned reply."""

    def script(request: LLMRequest) -> str:
        schema = request.json_schema or {}
        values = schema.get("properties", {}).get("answer", {}).get("enum")
        if values:
            return json.dumps({"answer": values[pick]})
        return canned_script(request)

    return script


def engine_with(
    script: Callable[[LLMRequest], str] = canned_script,
    scorer: OptionScorer | None = None,
    *,
    rating: bool = False,
) -> tuple[Engine, ScriptedLLM]:
    llm = ScriptedLLM(script)
    engine = build_engine(
        load_settings(store_url="memory", policy_seed=3, rate_cold_paths=rating),
        llm=llm,
        store=InMemoryStore(),
        searcher=InMemorySearcher([]),
        embedder=HashingEmbedder(384),
        option_scorer=scorer,
    )
    return engine, llm


def rating_every_path_best(request: LLMRequest) -> str:
    """A model that rates every path it is shown 5 of 5; else the canned reply."""
    if request.purpose == "rate" and request.json_schema is not None:
        scores = request.json_schema["properties"]["scores"]
        tools = request.json_schema["properties"]["tool"].get("enum", [None])
        return json.dumps({"scores": [5] * scores["minItems"], "tool": tools[0]})
    return canned_script(request)


def procedure_of(engine: Engine, arm: str) -> str:
    return next(path.procedure for path in engine.templates() if path.arm_id == arm)


def test_constrained_choice_holds_the_call_to_the_option_texts_and_answers_with_the_letter() -> (
    None
):
    engine, llm = engine_with(choosing(1))
    decision = engine.decide(LETTERED, force_path="choose_an_option")
    assert decision.answer == "B"
    answer = decision.step("answer").outputs
    assert (answer["chosen"], answer["chosen_text"]) == ("B", "Jupiter")
    schema = llm.requests[-1].json_schema or {}
    assert schema["properties"]["answer"]["enum"] == ["Mars", "Jupiter", "Venus"]
    assert decision.cost.calls == 1


def test_a_yes_no_question_is_answered_yes_or_no() -> None:
    engine, _ = engine_with(choosing(1))
    decision = engine.decide(YES_NO, force_path="reason_then_choose")
    assert decision.answer == "No"
    assert decision.cost.calls == 2  # the reasoning, then the choice
    assert decision.step("answer").outputs["reasoning"]


def test_a_reply_outside_the_options_is_no_answer_never_free_text() -> None:
    # a hosted model that ignores the schema: the reply fails validation, nothing is made up
    engine, _ = engine_with(lambda request: json.dumps({"answer": "Saturn"}))
    decision = engine.decide(LETTERED, force_path="choose_an_option")
    assert decision.answer is None
    assert decision.degraded


def test_option_likelihood_answers_the_likeliest_above_its_prior_and_counts_both_passes() -> None:
    # Mars is the likeliest after the question only because the model finds it likely after
    # any question: against the content-free prompt Jupiter gains most, and calibration picks it
    scorer = FakeScorer(
        {"Mars": (-2.0, 1), "Jupiter": (-2.5, 1), "Venus": (-3.0, 1)},
        priors={"Mars": -0.5, "Jupiter": -3.0, "Venus": -2.0},
    )
    engine, llm = engine_with(scorer=scorer)
    decision = engine.decide(LETTERED, force_path="likeliest_option")
    assert decision.answer == "B"
    outputs = decision.step("answer").outputs
    assert outputs["normalisation"] == "calibrated"
    assert outputs["uncalibrated_choice"] == "Mars"
    assert (outputs["chosen"], outputs["chosen_text"]) == ("B", "Jupiter")
    assert outputs["share"] == max(outputs["shares"])
    assert outputs["shares"][1] > 0.5
    assert outputs["content_free_prompt"] == CONTENT_FREE_PROMPT
    assert outputs["baseline_reused"] is False
    assert outputs["forward_tokens"] == 7 + 7  # each prompt once; one-token options, no more
    assert scorer.prompts == [
        "Question: Which planet is the largest?\nAnswer:",
        CONTENT_FREE_PROMPT,
    ]
    assert llm.requests == []  # nothing generated
    assert decision.cost.calls == 1


def test_calibration_keeps_the_likelier_option_per_token_where_the_priors_are_flat() -> None:
    # a prior of -1 a token: each option is measured against what its length alone would cost
    scorer = FakeScorer({"Mars": (-9.0, 3), "Jupiter": (-4.0, 4), "Venus": (-3.5, 1)})
    engine, _ = engine_with(scorer=scorer)
    decision = engine.decide(LETTERED, force_path="likeliest_option")
    assert decision.answer == "B"  # Jupiter: 0.0 above its prior, Venus -2.5, Mars -6.0
    assert decision.step("answer").outputs["forward_tokens"] == 2 * (7 + 2 + 3 + 0)


def test_an_option_sets_baseline_is_scored_once_across_questions() -> None:
    scorer = FakeScorer({"Yes": (-0.4, 1), "No": (-0.6, 1)}, priors={"Yes": -0.1, "No": -2.0})
    engine, _ = engine_with(scorer=CachingOptionScorer(scorer, frozenset({CONTENT_FREE_PROMPT})))
    first, second = (
        engine.decide(question, force_path="likeliest_option")
        for question in ("Is 91 a prime number?", "Is 97 a prime number?")
    )
    assert (first.answer, second.answer) == ("No", "No")  # "Yes" only by its prior
    assert scorer.prompts.count(CONTENT_FREE_PROMPT) == 1
    assert first.step("answer").outputs["baseline_reused"] is False
    assert second.step("answer").outputs["baseline_reused"] is True
    assert second.step("answer").outputs["forward_tokens"] == 7  # the question's pass alone


def test_without_a_scorer_option_likelihood_is_no_candidate_and_the_trace_says_why() -> None:
    engine, _ = engine_with(choosing(0))
    for _ in range(15):
        decision = engine.decide(LETTERED)
        assert decision.path.arm_id != "likeliest_option"
        excluded = decision.step("selection").outputs["not_candidates"]
        assert excluded["likeliest_option"] == NO_SCORER


@pytest.mark.parametrize("rating", [False, True], ids=["shipped", "model_rates_cold_paths"])
def test_questions_without_options_never_reach_the_option_paths(rating: bool) -> None:
    # With the rating on, the model's best-rated cold path once led even where it was no
    # candidate: an unrated arm counts as neutral, and option paths are never rated here.
    engine, _ = engine_with(rating_every_path_best, FakeScorer({}), rating=rating)
    for number in range(30):
        decision = engine.decide(f"{OPEN} Say it in {number + 1} words.")
        assert procedure_of(engine, decision.path.arm_id) not in OPTION_PROCEDURES
        assert decision.step("options").reason == "skipped"
    with pytest.raises(InvalidQueryError, match="offers none"):
        engine.decide(OPEN, force_path="choose_an_option")


def test_the_rating_of_an_open_question_lists_no_option_path() -> None:
    # The rating rates only the paths that can answer: an option path shown to it is a score
    # the model writes for nothing, on every cold decision.
    engine, llm = engine_with(rating_every_path_best, FakeScorer({}), rating=True)
    for number in range(10):
        engine.decide(f"{OPEN} Say it in {number + 1} words.")
    listed = [
        line.split(":")[0].split(". ", 1)[1]
        for request in llm.requests
        if request.purpose == "rate"
        for line in request.messages[-1]
        .content.split("Strategies:\n")[1]
        .split("\n\n")[0]
        .splitlines()
    ]
    option_paths = {p.arm_id for p in engine.templates() if p.procedure in OPTION_PROCEDURES}
    assert listed  # the rating ran, and listed the paths
    assert option_paths  # and there were option paths to leave out
    assert option_paths.isdisjoint(listed)


def test_options_a_client_gives_are_answered_only_by_the_option_paths() -> None:
    engine, _ = engine_with(choosing(1))
    for _ in range(20):
        decision = engine.decide(
            "Route this ticket: my card was charged twice",
            options=["billing", "technical", "account"],
        )
        assert decision.answer in ("billing", "technical", "account")
        assert procedure_of(engine, decision.path.arm_id) in OPTION_PROCEDURES
    assert decision.step("options").outputs["source"] == "client"
    with pytest.raises(InvalidQueryError, match="free text"):
        engine.decide("Route this", options=["a", "b"], force_path="direct_answer")
    with pytest.raises(InvalidQueryError, match="repeats option 1"):
        engine.decide("Route this", options=["Billing", " billing "])


def test_a_new_kinds_first_question_with_options_is_answered_with_an_option() -> None:
    for seed in range(6):  # whatever the policy's draw
        llm = ScriptedLLM(choosing(0))
        engine = build_engine(
            load_settings(store_url="memory", policy_seed=seed),
            llm=llm,
            store=InMemoryStore(),
            searcher=InMemorySearcher([]),
            embedder=HashingEmbedder(384),
        )
        decision = engine.decide(LETTERED)
        assert decision.kind is not None
        assert decision.kind.new
        assert procedure_of(engine, decision.path.arm_id) == "constrained_choice"
        assert decision.answer == "A"


def test_a_question_that_offers_options_is_answered_only_by_the_option_paths() -> None:
    engine, _ = engine_with(choosing(2))
    for number in range(25):
        decision = engine.decide(f"Which of these is a gas giant, case {number}? {LETTERED[29:]}")
        assert procedure_of(engine, decision.path.arm_id) in OPTION_PROCEDURES
        assert decision.answer == "C"
        excluded = decision.step("selection").outputs["not_candidates"]
        assert (
            excluded["direct_answer"] == "writes free text, and the question's answer is an option"
        )


def test_an_exact_tools_value_answers_directly_only_as_one_of_the_options() -> None:
    engine, _ = engine_with(choosing(1))
    answers = {engine.decide("Which is larger, 0.7 or 0.65?").answer for _ in range(30)}
    assert answers <= {"0.7", "0.65"}  # never "Answer: 0.7"
    direct = [
        d
        for d in (engine.decide("Which is larger, 0.7 or 0.65?") for _ in range(30))
        if d.step("answer").inputs.get("direct")
    ]
    assert direct, "the numbers tool reads this question whole: some decisions answer directly"
    assert {d.answer for d in direct} == {"0.7"}


def test_no_detour_writes_a_free_text_path_for_a_question_with_options() -> None:
    engine, llm = engine_with(choosing(0))
    for number in range(30):  # a kind failing again and again: where a detour would trigger
        decision = engine.decide(
            f"Pick one, case {number}: (A) red (B) blue", checker=lambda _: 0.0
        )
        assert decision.step("detour").reason == "skipped"
        assert procedure_of(engine, decision.path.arm_id) in OPTION_PROCEDURES
    assert not [request for request in llm.requests if request.purpose == "detour"]
