"""A second reader of a question's options: the model's own extraction, held to the question.

The rule reader (`engine.domain.options`) reads only what its grammar accounts for, and refuses
the rest. On fresh phrasings it refused about a third of the questions that offer options
(docs/benchmarks.md, "A second held-out set, written before the second round"): each new
wording of a known class needs a new rule. Where it refuses, the model is asked, in one call
constrained to `Extraction`'s JSON schema, whether the question asks for exactly one of a closed
set written in it, and which. What it returns is never taken on its word; a reading holds only
where:

- the question shows a sign of a written set at all (`option_cue`): an "or", a slash or pipe
  between words, a label such as "(B)" or "b)", a bullet line, a bracketed list, "one of",
  "options"... A question with none of these is never sent to the model;
- the rule reader did not refuse it for asking for several options or a count;
- the model answers "one_of_listed" and gives 2 to 26 distinct options;
- every option is a span of the question, word for word (case and spacing aside), and the
  options follow one another as one list: between two of them stands only punctuation, "or",
  "and", "vs", a line break or the next one's label. The model may pick the span; it cannot
  make one up, merge words from two places, or stretch a list over the prose around it;
- labels, where the model gives them, are all there, run in order from "A", "a", "1" or "i",
  and each stands just before its option in the question; the answer is then the label, unless
  the question's own instructions ask for the text (`engine.domain.option_forms`).

Anything else is a refusal with its reason, and the question is answered in free text, as
before: a wrong reading forces an answer into a set the asker never offered, so a guard that
costs recall is the right trade. The trace keeps the model's reply and the guard's verdict.

>>> option_cue("What is the capital of France?") is None
True
>>> option_cue("Is a puffin a bird or a fish?")
"'or'"
>>> reply = Extraction(verdict="one_of_listed", options=[
...     ExtractedOption(label="", text="a bird"), ExtractedOption(label="", text="a fish")])
>>> checked_extraction("Is a puffin a bird or a fish?", reply).texts
('a bird', 'a fish')
>>> checked_extraction("Is a puffin a bird? Some say it is a fish.", reply).reason
"the options are not one list: 'a bird' and 'a fish' stand apart ('? Some say it is ')"
"""

import re
from typing import Literal

from pydantic import BaseModel, Field

from engine.domain.option_blocks import MAX_OPTION_CHARS, MAX_OPTIONS
from engine.domain.option_forms import answer_form
from engine.domain.option_texts import all_differ
from engine.domain.options import NoOptions, Options, asks_for_several

__all__ = [
    "EXTRACTION_SYSTEM",
    "ExtractedOption",
    "Extraction",
    "checked_extraction",
    "extraction_prompt",
    "option_cue",
]

Verdict = Literal["one_of_listed", "open_question", "task_or_request", "several_or_count"]


class ExtractedOption(BaseModel):
    """One option as the model read it: its label as written ("B", "2", "" for none), its text."""

    label: str = Field(max_length=4)
    text: str = Field(min_length=1, max_length=MAX_OPTION_CHARS)


class Extraction(BaseModel):
    """The model's reading: what the question asks for, and the options when it is one of them.

    The verdict comes first so that a small model decides before it lists; the options' count is
    bounded in the schema, so a grammar-held model cannot run on."""

    verdict: Verdict
    options: list[ExtractedOption] = Field(default_factory=list, max_length=MAX_OPTIONS)


# The instructions and worked examples, one fixed prefix (the local model keeps its state, so
# only the question's own tokens are new on each call). The examples are written for this
# prompt; none is from a measured set.
EXTRACTION_SYSTEM = """\
You read a user's message and decide whether it asks for exactly ONE answer taken from a closed \
set of answers written in the message itself.
verdict:
- "one_of_listed": the message asks which one of the written alternatives is right, and the \
answer is one of them (a quiz item with lettered options, "X or Y?", "Answer yes or no.", \
classify as one of given labels, plausible or implausible, true or false).
- "open_question": the answer is not restricted to written alternatives (advice, explain, why, \
how, alternatives followed by "or something else", "and why").
- "task_or_request": the message asks to write, summarise, rank, sort, translate, list, \
compare or do something with the items; or the items are only material or examples.
- "several_or_count": it asks for more than one of them, or how many.
options: only for "one_of_listed", each alternative copied exactly as written in the message, \
in order, without its label; "label" is the letter or number written before it ("A", "b", \
"2"), or "" when none. Include "both" or "neither" when the message offers them. Otherwise \
options is [].
Examples:
Message: Which metal melts at the lowest temperature? (A) iron (B) tin (C) copper
{"verdict": "one_of_listed", "options": [{"label": "A", "text": "iron"}, {"label": "B", \
"text": "tin"}, {"label": "C", "text": "copper"}]}
Message: Did the vase break because the cat pushed it? Respond Yes or No.
{"verdict": "one_of_listed", "options": [{"label": "", "text": "Yes"}, {"label": "", "text": \
"No"}]}
Message: Is a seahorse a fish or a mammal?
{"verdict": "one_of_listed", "options": [{"label": "", "text": "a fish"}, {"label": "", \
"text": "a mammal"}]}
Message: Route this ticket to sales, support or finance: "My invoice shows the wrong VAT."
{"verdict": "one_of_listed", "options": [{"label": "", "text": "sales"}, {"label": "", \
"text": "support"}, {"label": "", "text": "finance"}]}
Message: Should I learn piano or violin first, and what should I practise daily?
{"verdict": "open_question", "options": []}
Message: Summarise these proposals: A. a new bridge, B. a ferry, C. a tunnel.
{"verdict": "task_or_request", "options": []}
Message: Which of these are vegetables: carrot, apple, leek?
{"verdict": "several_or_count", "options": []}"""


def extraction_prompt(question: str) -> str:
    """The user turn: the message, fenced so that its own instructions stay its content."""
    return f"Message: {question}"


# ---- the gate: a sign of a written set -----------------------------------------------------

_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("'or'", re.compile(r"\bor\b", re.IGNORECASE)),
    ("a slash or pipe between words", re.compile(r"\w\s*[/|]\s*\w")),
    ("a label", re.compile(r"(?:^|[\s:(\[])[(\[]?(?:[A-Ha-h]|[1-9]|i{1,3}|iv)[)\].:]\s")),
    ("a bullet line", re.compile(r"^\s*[-*•–]\s+\S", re.MULTILINE)),
    ("a bracketed list", re.compile(r"[(\[][^()\[\]]*,[^()\[\]]*[)\]]")),
    # "Folders: receipts, personal, work", "Pick the verb: run, blue, table?"
    ("a short list after a colon", re.compile(r":\s*[^\s,.:?]+(?:\s[^\s,.:?]+){0,2},\s*\S")),
    (
        "a word that names a set",
        re.compile(
            r"\b(?:one\s+of|options?|choices?|either|neither|categor(?:y|ies)|labels?)\b",
            re.IGNORECASE,
        ),
    ),
)


def option_cue(question: str) -> str | None:
    """The first sign that `question` writes a set of answers, in words; None where none is,
    and None where it asks for several options or a count (no one option answers it)."""
    if asks_for_several(question):
        return None
    return next((name for name, cue in _CUES if cue.search(question)), None)


# ---- the guards ---------------------------------------------------------------------------

_QUOTES = "\"'“”‘’`"
# What may stand between two options of one list: punctuation, "or"/"and"/"vs", line breaks,
# bullets, and the next option's label (checked apart where the options are labelled).
_GAP = re.compile(
    r"(?:[\s,;:./|\-–—*•\"'“”‘’()\[\]]|\bor\b|\band\b|\bvs\b\.?|\bversus\b|\bnor\b)*",
    re.IGNORECASE,
)
_LABEL_RUNS = ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")


def checked_extraction(question: str, reply: Extraction) -> Options | NoOptions:
    """The model's reading where every guard holds (see the module's docstring), else why not."""
    texts = [option.text.strip().strip(_QUOTES).strip() for option in reply.options]
    labels = [option.label.strip().strip("()[].:") for option in reply.options]
    problem = _reply_problem(question, reply.verdict, texts, labels)
    if problem:
        return NoOptions(problem)
    spans = _spans(question, texts, labels if any(labels) else None)
    if isinstance(spans, str):
        return NoOptions(spans)
    found = tuple(question[start:end] for start, end in spans)
    understood = "the model's reading, each option found in the question's text"
    form = answer_form(question, found) if any(labels) else "word"
    if form not in ("letter", "word"):
        return NoOptions(form)
    if form == "word":
        how = ", by text" if any(labels) else ""
        return Options(found, "word", stem=question, understood=understood + how)
    lettered = f"{understood}, labelled {', '.join(labels)}"
    return Options(found, "letter", tuple(labels), question, lettered)


def _reply_problem(question: str, verdict: str, texts: list[str], labels: list[str]) -> str:
    """Why the reply is no reading before its texts are looked for in the question, or ""."""
    if verdict != "one_of_listed":
        return f"the model read no options ({verdict})"
    several = asks_for_several(question)
    if several:
        return several
    if not 2 <= len(texts) <= MAX_OPTIONS or not all(texts):
        return f"the model read {len(texts)} options; a choice needs 2 to {MAX_OPTIONS}"
    if not all_differ(texts):
        return f"the model read two options the same: {texts}"
    return (_label_problem(labels) or "") if any(labels) else ""


def _spans(
    question: str, texts: list[str], labels: list[str] | None
) -> list[tuple[int, int]] | str:
    """Where each option stands in the question, as one list in order, or why they do not.

    The list may start at any place the first option is written ("Is X ...? Answer X or Y.")."""
    patterns = [
        _option_pattern(text, None if labels is None else labels[index])
        for index, text in enumerate(texts)
    ]
    first = list(patterns[0].finditer(question))
    if not first:
        return _not_written(texts[0], labels[0] if labels else None)
    problem = ""
    for match in first:
        spans = [match.span("text")]
        for index in range(1, len(texts)):
            found = patterns[index].search(question, spans[-1][1])
            if found is None:
                return _not_written(texts[index], labels[index] if labels else None)
            gap = question[spans[-1][1] : found.start("label" if labels else "text")]
            if not _GAP.fullmatch(gap):
                problem = (
                    f"the options are not one list: {texts[index - 1]!r} and {texts[index]!r} "
                    f"stand apart ({gap[:40]!r})"
                )
                break
            spans.append(found.span("text"))
        else:
            return spans
    return problem


def _not_written(text: str, label: str | None) -> str:
    where = f" after its label {label!r}" if label else ""
    return f"the option {text!r} is not written in the question{where}"


def _option_pattern(text: str, label: str | None) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(word) for word in text.split())
    # An option is a whole span: "a bird" is no option inside "a birdhouse".
    before = r"(?<!\w)" if text[0].isalnum() else ""
    after = r"(?!\w)" if text[-1].isalnum() else ""
    body = rf"{before}(?P<text>(?i:{words})){after}"
    if not label:
        return re.compile(body)
    # The label just before its option: "(B) tin", "b) tin", "B. tin", "B: tin", "[B] tin",
    # "B - tin", also with markdown emphasis around it ("**B.** tin").
    tag = rf"(?<!\w)[(\[]?(?P<label>{re.escape(label)})[)\].:]?"
    return re.compile(rf"{tag}[\s*_]*(?:[-–—:]\s*)?{body}")


def _label_problem(labels: list[str]) -> str | None:
    """Why the labels are not a run from the first ("A", "a", "1", "i"), or None."""
    if not all(labels):
        return f"the model labelled some options and not others: {labels}"
    count = len(labels)
    runs = [list(run[:count]) for run in _LABEL_RUNS]
    runs += [[str(number) for number in range(1, count + 1)], list(_ROMAN[:count])]
    if labels in runs or [label.lower() for label in labels] == list(_ROMAN[:count]):
        return None
    return f"the labels {labels} do not run in order from the first"
