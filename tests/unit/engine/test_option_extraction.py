"""The model as a second reader of options (issue 39, item 1, third round): asked only where the
rule reader refuses and the question shows a sign of a written set, and its reading held to
the question's own text; the options step says which reader read, with the model's reply."""

import json
from collections.abc import Callable

import pytest

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.option_extraction import (
    Extraction,
    checked_extraction,
    option_cue,
)
from engine.domain.options import NoOptions, Options, understand_options
from engine.domain.records import LLMRequest
from engine.errors import LLMTimeoutError
from engine.orchestration.facade import Engine
from engine.settings import load_settings
from engine.stages.option_reading import read_by_model
from retrieval.embedding import HashingEmbedder

TICKET = "Mark the ticket [urgent/routine]: server room is flooding"
SPRINT = "Would a cheetah or a greyhound win a sprint?"


def reading(*texts: str, verdict: str = "choice") -> Extraction:
    return Extraction.model_validate({"verdict": verdict, "options": list(texts)})


# ---- the guards --------------------------------------------------------------------------


def test_a_reading_of_spans_written_as_one_list_holds() -> None:
    found = checked_extraction(SPRINT, reading("a cheetah", "a greyhound"))
    assert isinstance(found, Options)
    assert (found.texts, found.form, found.letters) == (("a cheetah", "a greyhound"), "word", ())
    # the question's own spelling, whatever case the model wrote
    cased = checked_extraction(TICKET, reading("Urgent", "ROUTINE"))
    assert isinstance(cased, Options)
    assert cased.texts == ("urgent", "routine")


@pytest.mark.parametrize(
    ("question", "extraction", "why"),
    [
        # an option the question does not write, or only inside a word
        (SPRINT, reading("a cheetah", "a lion"), "not written in the question"),
        ("Is the birdhouse red or blue?", reading("bird", "blue"), "not written"),
        # two spans from two places of the text are no list
        (
            "Did a cheetah win? The greyhound lost.",
            reading("a cheetah", "The greyhound"),
            "not one list",
        ),
        # one option is no choice, two the same are one
        (SPRINT, reading("a cheetah"), "a choice needs 2"),
        (SPRINT, reading("a cheetah", "A cheetah"), "two options the same"),
        # the model's own verdict that nothing is to be picked stands
        (SPRINT, reading("a cheetah", "a greyhound", verdict="open"), "(open)"),
        # the rule reader's refusal of a count stands whatever the model says
        ("How many of these are even: 4 or 7?", reading("4", "7"), "several options or a count"),
        # the labels of options written elsewhere are not the options
        ("Reply A or B. A) 12 B) 14. What is 2 x 7?", reading("A", "B"), "labels of options"),
        # advice, how and why are answered by none of the things named
        ("Should I use glue or nails to fix the shelf?", reading("glue", "nails"), "opens a"),
        ("Fine. How do I pick red or blue paint?", reading("red", "blue"), "opens a"),
        # words side by side are no list; the end of a comma list is not the list
        ("Let me know by Friday, either way.", reading("know", "by", "Friday"), "not one list"),
        (
            "Does it hold for x, y, both, or neither?",
            reading("both", "neither"),
            "end of a longer list",
        ),
        # examples, a list heading an open question, part of a list, operands, a quantity
        ("Names like Rex or Bo, anyone?", reading("Rex", "Bo"), "examples"),
        ("Tea or coffee: what is healthier?", reading("Tea", "coffee"), "head a question"),
        ("Notes:\n- milk\n- eggs\n- flour\nWhat is missing?", reading("eggs", "flour"), "longer"),
        ("What is the mean of 3, 5, 10?", reading("3", "5", "10"), "computed on"),
        ("What is 2 or 3 percent of 900?", reading("2", "3"), "computed on"),
        # options as material, then a request that is not to answer
        (
            "My plans: (a) rent, (b) buy. Help me weigh them.",
            reading("rent", "buy"),
            "followed by a request that is not to answer",
        ),
    ],
)
def test_a_reading_the_question_does_not_bear_is_refused(
    question: str, extraction: Extraction, why: str
) -> None:
    found = checked_extraction(question, extraction)
    assert isinstance(found, NoOptions)
    assert why in found.reason


def test_labels_are_read_from_the_question_and_must_run_in_order() -> None:
    question = "Best base for a pizza: a) rye b) spelt c) durum"
    found = checked_extraction(question, reading("rye", "spelt", "durum"))
    assert isinstance(found, Options)
    assert (found.form, found.letters) == ("letter", ("a", "b", "c"))
    # two of three lettered options are no list: "b) spelt" stands between them
    skipped = checked_extraction(question, reading("rye", "durum"))
    assert isinstance(skipped, NoOptions)
    assert "not one list" in skipped.reason
    unordered = checked_extraction("Pick: b) rye a) spelt", reading("rye", "spelt"))
    assert isinstance(unordered, NoOptions)
    assert "do not run in order" in unordered.reason
    # the question's instruction for the text wins over the labels
    spelled = checked_extraction(
        question + ". Write the word, not the letter.", reading("rye", "spelt", "durum")
    )
    assert isinstance(spelled, Options)
    assert spelled.form == "word"


def test_a_word_every_option_has_before_it_is_part_of_each() -> None:
    found = checked_extraction(SPRINT, reading("cheetah", "greyhound"))
    assert isinstance(found, Options)
    assert found.texts == ("a cheetah", "a greyhound")
    bare = checked_extraction("Did he fly to Rome or Paris?", reading("Rome", "Paris"))
    assert isinstance(bare, Options)
    assert bare.texts == ("Rome", "Paris")  # "to" stands before one of them only


def test_a_list_inside_quoted_material_is_material() -> None:
    question = "Can you soften this: 'Your code is bad, fix it or leave.'"
    found = checked_extraction(question, reading("fix it", "leave"))
    assert isinstance(found, NoOptions)
    assert "inside quoted material" in found.reason
    mention = checked_extraction("What does 'yes or no' mean here?", reading("yes", "no"))
    assert isinstance(mention, NoOptions)
    quoted = checked_extraction("Is it 'who' or 'whom' here?", reading("who", "whom"))
    assert isinstance(quoted, Options)  # each option quoted on its own: a choice


def test_a_question_with_no_sign_of_a_written_set_is_never_sent() -> None:
    assert option_cue("What is the capital of Peru?") is None
    assert option_cue("How many of these are prime: 3 or 9?") is None  # a count: no one option
    assert option_cue(SPRINT) == "'or'"
    assert option_cue("Pick the noun: run, table, blue") is not None


# ---- the call ---------------------------------------------------------------------------


def extracting(extraction: Extraction) -> Callable[[LLMRequest], str]:
    """A model that writes `extraction` when asked for options; else it chooses the first
    option where held to an enum, or gives the canned reply."""

    def script(request: LLMRequest) -> str:
        if request.purpose == "options":
            return extraction.model_dump_json()
        values = (request.json_schema or {}).get("properties", {}).get("answer", {}).get("enum")
        return json.dumps({"answer": values[0]}) if values else canned_script(request)

    return script


def test_the_call_is_held_to_the_schema_and_its_reply_kept() -> None:
    llm = ScriptedLLM(extracting(reading("urgent", "routine")))
    found, record = read_by_model(llm, TICKET, timeout_s=5.0, model="local/reader")
    assert isinstance(found, Options)
    assert found.texts == ("urgent", "routine")
    (request,) = llm.requests
    assert request.purpose == "options"
    assert request.json_schema is not None
    assert set(request.json_schema["properties"]) == {"verdict", "options"}
    assert request.json_schema["properties"]["verdict"]["enum"][0] == "choice"
    assert TICKET in request.messages[-1].content
    assert record["reader"] == "model"
    assert record["model"] == "local/reader"
    assert "routine" in str(record["reply"])


def test_a_reply_that_does_not_validate_is_a_refusal() -> None:
    llm = ScriptedLLM(lambda _request: '{"verdict": "maybe"}')
    found, _ = read_by_model(llm, TICKET, timeout_s=5.0, model="m")
    assert isinstance(found, NoOptions)
    assert "did not validate" in found.reason


# ---- in the engine ----------------------------------------------------------------------


def engine_reading(
    script: Callable[[LLMRequest], str], *, reader: str
) -> tuple[Engine, ScriptedLLM]:
    llm = ScriptedLLM(script)
    engine = build_engine(
        load_settings(store_url="memory", policy_seed=3, option_reader_model=reader),
        llm=llm,
        store=InMemoryStore(),
        searcher=InMemorySearcher([]),
        embedder=HashingEmbedder(384),
    )
    return engine, llm


def options_step(engine: Engine, question: str) -> tuple[dict[str, object], str, str | None]:
    decision = engine.decide(question)
    (step,) = [step for step in decision.trace if step.stage == "options"]
    return step.outputs, step.reason, decision.answer


def test_where_the_rules_refuse_the_model_reads_and_an_option_path_answers() -> None:
    assert isinstance(understand_options(TICKET), NoOptions)  # the rule reader refuses it
    engine, llm = engine_reading(extracting(reading("urgent", "routine")), reader="scripted")
    outputs, reason, answer = options_step(engine, TICKET)
    assert reason == "done"
    assert outputs["options"] == ["urgent", "routine"]
    assert outputs["reader"] == "model"
    assert outputs["model"] == "scripted"
    assert outputs["cue"] == "a slash or pipe between words"
    assert "no option block" in str(outputs["rules"])  # the rule reader's refusal, kept
    assert answer in ("urgent", "routine")  # answered by choosing, not in free text
    assert [request.purpose for request in llm.requests].count("options") == 1


def test_turned_off_the_same_question_is_answered_in_free_text_without_the_call() -> None:
    engine, llm = engine_reading(extracting(reading("urgent", "routine")), reader="")
    outputs, reason, _ = options_step(engine, TICKET)
    assert reason == "skipped"
    assert outputs["reader"] == "rules"
    assert "options" not in [request.purpose for request in llm.requests]


def test_no_call_for_a_question_the_rules_read_or_one_with_no_sign_of_a_set() -> None:
    engine, llm = engine_reading(extracting(reading("urgent", "routine")), reader="scripted")
    ruled, _, _ = options_step(engine, "Is 91 a prime number?")
    assert ruled["reader"] == "rules"
    options_step(engine, "What is the capital of Peru?")
    assert "options" not in [request.purpose for request in llm.requests]


def test_a_refused_reading_leaves_the_question_in_free_text_with_both_reasons() -> None:
    engine, _ = engine_reading(extracting(reading("a lion", "a tiger")), reader="scripted")
    outputs, reason, _ = options_step(engine, SPRINT)
    assert reason == "skipped"
    assert "not written in the question" in str(outputs["why"])
    assert "no option block" in str(outputs["rules"])
    assert "a lion" in str(outputs["reply"])


def test_a_fault_of_the_reading_call_degrades_nothing() -> None:
    def script(request: LLMRequest) -> str:
        if request.purpose == "options":
            raise LLMTimeoutError("the reader took too long")
        return canned_script(request)

    engine, _ = engine_reading(script, reader="scripted")
    decision = engine.decide(SPRINT)
    (step,) = [step for step in decision.trace if step.stage == "options"]
    assert "LLMTimeoutError" in str(step.outputs["fault"])
    assert not decision.degraded
    assert decision.answer is not None
