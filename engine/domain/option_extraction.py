"""A second reader of a question's options: the model's own extraction, held to the question.

The rule reader (`engine.domain.options`) reads only what its grammar accounts for, and refuses
the rest. On fresh phrasings it refused about a third of the questions that offer options
(docs/benchmarks.md, "A second held-out set, written before the second round"): each new
wording of a known class needs a new rule. Where it refuses, the model is asked, in one call
constrained to `Extraction`'s JSON schema, whether the question asks for exactly one of a closed
set written in it, and which. What it returns is never taken on its word; a reading holds only
where:

- the question shows a sign of a written set at all (`option_cue`): an "or", a slash or pipe
  between words, a label such as "(B)" or "b)", a bullet line, a bracketed list, a short list
  after a colon, "one of", "options"...; and it neither asks for several options or a count
  nor holds an instruction of the asker's whose verb is not one of answering ("Convert these
  …", "Help me think it through": `engine.domain.option_frame`, the rule reader's own test).
  Any other question is never sent to the model;
- the model's verdict is "choice", with 2 to 26 distinct options;
- every option is a span of the question, word for word (case and spacing aside), and the
  options follow one another as one list: between two of them stands only punctuation, "or",
  "and", "vs", a line break or the next one's label. The model picks the spans; it cannot
  make one up, merge words from two places, or stretch a list over the prose around it. A word
  every option has just before it ("a cheetah or a greyhound", "to cows or to sharks") is part
  of each, as the sets' gold writes them;
- the list is the whole closed set the asker offers: not inside quoted material ("Soften this:
  'Fix it or leave.'", "What does 'yes or no' mean?"), not examples ("names like Max or
  Bella"), not part of a longer list written one item a line, not numbers that are operands
  or a quantity ("the median of 4, 8, 15", "2 or 3 percent of"), not the labels of options
  written elsewhere ("Reply A, B, C or D."), and not heading or followed by a question or
  request no option answers ("Organic or conventional: what are the differences?", "(a) …
  (b) …. Help me weigh them."); and the question is no how, why, when or advice question
  ("Should I use tea or coffee to …?", "Is it worth …?"), which the sets' gold reads as open;
- labels are read from the question, not from the model: where every option stands just after
  one ("(B)", "b)", "2.", "iii)") and they run in order from the first, the answer is the label,
  unless the question's own instructions ask for the text (`engine.domain.option_forms`);
  where some options have one and some not, no reading.

Anything else is a refusal with its reason, and the question is answered in free text, as
before: a wrong reading forces an answer into a set the asker never offered, so a guard that
costs recall is the right trade. The trace keeps the model's reply and the guard's verdict.

>>> option_cue("What is the capital of France?") is None
True
>>> option_cue("Is a puffin a bird or a fish?")
"'or'"
>>> reply = Extraction(verdict="choice", options=["a bird", "a fish"])
>>> checked_extraction("Is a puffin a bird or a fish?", reply).texts
('a bird', 'a fish')
>>> checked_extraction("Is a puffin a bird? Some say it is a fish.", reply).reason
"the options are not one list: 'a bird' and 'a fish' stand apart ('? Some say it is ')"
"""

import itertools
import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from engine.domain.option_blocks import MAX_OPTION_CHARS, MAX_OPTIONS
from engine.domain.option_forms import answer_form
from engine.domain.option_frame import asker_instruction
from engine.domain.option_texts import all_differ
from engine.domain.options import NoOptions, Options, asks_for_several

__all__ = [
    "EXTRACTION_SYSTEM",
    "Extraction",
    "checked_extraction",
    "extraction_prompt",
    "option_cue",
]

Verdict = Literal["choice", "open", "task", "several"]
OptionText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_OPTION_CHARS)]


class Extraction(BaseModel):
    """The model's reading: what the question asks for, and the options when it is one of them.

    The verdict comes first so that a small model decides before it lists; the options are bare
    texts (labels are read from the question itself, not asked for: fewer tokens to generate on
    two cores), their count bounded in the schema, so a grammar-held model cannot run on."""

    verdict: Verdict
    options: list[OptionText] = Field(default_factory=list, max_length=MAX_OPTIONS)


# The instructions and worked examples, one fixed prefix (the local model keeps its state, so
# only the question's own tokens are new on each call). The examples are written for this
# prompt; none is from a measured set.
EXTRACTION_SYSTEM = """\
Decide whether the user's message asks for exactly ONE answer out of a closed set of \
alternatives written in the message itself, so that replying with just one of them would be a \
complete answer.
verdict "choice": it asks which one of the written alternatives is right (a quiz item with \
lettered options, "X or Y?", "Answer yes or no.", a label out of the given labels, plausible \
or implausible, true or false). Then copy each alternative into options exactly as written, in \
order, without its letter and without the words around it, including "both" or "neither" when \
offered.
verdict "open": the answer is not limited to the written alternatives: advice on what to do \
("Should I ...?", "When should I ...?", "Is it worth ...?"), explain, why, how, "or something \
else", "and why", or the alternatives only say how to answer (a language, a length).
verdict "task": it asks to write, rewrite, summarise, rank, sort, convert, translate, list, \
compare, discuss or help think through, or the alternatives are only material, examples or a \
topic ("What does 'yes or no' mean?").
verdict "several": it asks for more than one of them, or how many.
For every verdict but "choice", options is [].
Message: Which metal melts first? (A) iron (B) tin (C) copper
{"verdict": "choice", "options": ["iron", "tin", "copper"]}
Message: Did the vase break because the cat pushed it? Respond Yes or No.
{"verdict": "choice", "options": ["Yes", "No"]}
Message: Is a seahorse a fish or a mammal?
{"verdict": "choice", "options": ["a fish", "a mammal"]}
Message: Did the bridge open before or after 1900?
{"verdict": "choice", "options": ["before", "after"]}
Message: Route this ticket to sales, support or finance: "My invoice shows the wrong VAT."
{"verdict": "choice", "options": ["sales", "support", "finance"]}
Message: "The soup was cold again." Mood - angry, calm or amused?
{"verdict": "choice", "options": ["angry", "calm", "amused"]}
Message: Should I paint the fence with oil or acrylic so it lasts longer?
{"verdict": "open", "options": []}
Message: Answer in German or Dutch: where do you live?
{"verdict": "open", "options": []}
Message: My choices: (a) move to Lyon, (b) stay in Paris. Help me weigh them.
{"verdict": "task", "options": []}
Message: Which of these are vegetables: carrot, apple, leek?
{"verdict": "several", "options": []}"""


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
    # "pick a priority - P1, P2, P3"
    ("three short items between commas", re.compile(r"(?<!\w)[\w'-]+,\s+[\w'-]+,\s+[\w'-]+")),
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
    and None where no one option could answer it: it asks for several or a count, or sets a
    task that is not answering ("Summarise these options: …")."""
    if asks_for_several(question) or asker_instruction(question):
        return None
    return next((name for name, cue in _CUES if cue.search(question)), None)


# ---- the guards ---------------------------------------------------------------------------

_QUOTES = "\"'“”‘’`"
# A label written before an option: "(B)", "B)", "B.", "B:", "[B]", "b -", "2.", "iii)".
_LABEL = r"[(\[]?(?P<label>[A-Za-z]|\d{1,2}|[ivx]{2,4}|[IVX]{2,4})(?:[)\].:]|\s+[-–—])"
_LABEL_BEFORE = re.compile(rf"(?<!\w){_LABEL}[\s*_]*$")
# What may stand between two options of one list: punctuation, "or"/"and"/"vs", line breaks,
# bullets, and the next option's label.
_GAP = re.compile(
    rf"(?:[\s,;:./|\-–—*•_\"'“”‘’()\[\]]|\bor\b|\band\b|\bvs\b|\bversus\b|\bnor\b"
    rf"|(?<!\w){_LABEL.replace('?P<label>', '?:')})*",
    re.IGNORECASE,
)
# A word the options share before them, which belongs to each ("a cheetah or a greyhound", "to
# cows or to sharks", "in glass or in a vacuum"): the model may leave it out of its copy.
_SHARED = re.compile(
    r"(?<!\w)(?P<word>an?|the|to|in|on|at|by|for|with|from|into|of)\s+$", re.IGNORECASE
)
_ARTICLES = frozenset({"a", "an", "the"})
_ARTICLE_BEFORE = re.compile(r"(?<!\w)(?:an?|the)\s+$", re.IGNORECASE)
_ARTICLE_OPENS = re.compile(r"(?:an?|the)\s", re.IGNORECASE)
# Quoted material: a span in straight or curly quotes.
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']*'(?!\w)|‘[^’]*’")
_LABEL_RUNS = ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
# "A, B, C or D" read as the options: the labels of options written elsewhere, or none.
_LABEL_LISTS = [list(_LABEL_RUNS[0][:count]) for count in range(2, 27)] + [
    [str(number) for number in range(1, count + 1)] for count in range(2, 27)
]
# A question that asks how, why or when, or asks for advice ("How long should I boil an egg for
# a soft or hard yolk?", "When should I use a tuple or a list?", "Should I use tea or coffee to
# stain paper?"), is answered by no one of the things it names: the sets' gold reads none, and
# the model read such questions as choices.
_OPEN_QUESTION = re.compile(
    r"(?:^|[.?!:]\s+|\n)\s*(?:how|why|when|should\s+(?:i|we)|is\s+it\s+worth)\b[^.?!]*\?",
    re.IGNORECASE,
)
# Words that make what follows examples, not a closed set ("names like Max or Bella").
_EXAMPLES = re.compile(
    r"(?<!\w)(?:like|such\s+as|e\.g\.|for\s+example|for\s+instance|including)[\s:,]*$",
    re.IGNORECASE,
)
# A list that heads a question no option answers: "Organic or conventional: what are the real
# differences?", "Reply in English or Spanish: what is your favourite season?".
_HEADS_AN_OPEN_QUESTION = re.compile(r"\s*:\s*(?:what|how|why|when|where)\b", re.IGNORECASE)
# Numbers that are operands ("the median of 4, 8, 15") or a quantity ("2 or 3 percent of").
_NUMBER = re.compile(r"[-+]?\d[\d,.]*")
_OF = re.compile(r"\bof\s*$", re.IGNORECASE)
_QUANTITY = re.compile(r"\s*(?:%|[^\W\d_])")
# A bullet or label at the start of a line: a list written one item a line.
_LINE_ITEM = re.compile(r"^\s*(?:[-*•–]|[(\[]?(?:[A-Za-z]|\d{1,2})[)\].:])\s+\S")


def checked_extraction(question: str, reply: Extraction) -> Options | NoOptions:
    """The model's reading where every guard holds (see the module's docstring), else why not."""
    texts = [text.strip().strip(_QUOTES).strip() for text in reply.options]
    problem = _reply_problem(question, reply.verdict, texts)
    if problem:
        return NoOptions(problem)
    spans = _placed(question, texts)
    if isinstance(spans, str):
        return NoOptions(spans)
    found = tuple(question[start:end] for start, end in spans)
    understood = "the model's reading, each option found in the question's text"
    labels = _labels(question, spans)
    if isinstance(labels, str):
        return NoOptions(labels)
    form = answer_form(question, found) if labels else "word"
    if form not in ("letter", "word"):
        return NoOptions(form)
    if form == "word":
        how = ", by text" if labels else ""
        return Options(found, "word", stem=question, understood=understood + how)
    lettered = f"{understood}, labelled {', '.join(labels)}"
    return Options(found, "letter", labels, question, lettered)


def _reply_problem(question: str, verdict: str, texts: list[str]) -> str:
    """Why the reply is no reading before its texts are looked for in the question, or ""."""
    open_question = _OPEN_QUESTION.search(question)
    problems = (
        verdict != "choice" and f"the model read no options ({verdict})",
        asks_for_several(question) or asker_instruction(question),
        not (2 <= len(texts) <= MAX_OPTIONS and all(texts))
        and f"the model read {len(texts)} options; a choice needs 2 to {MAX_OPTIONS}",
        not all_differ(texts) and f"the model read two options the same: {texts}",
        [text.upper() for text in texts] in _LABEL_LISTS
        and f"the model read the labels of options, not the options: {texts}",
        open_question and f"'{open_question.group(0).strip()}' opens a question no option answers",
    )
    return next((problem for problem in problems if problem), "")


def _placed(question: str, texts: list[str]) -> list[tuple[int, int]] | str:
    """The options' spans where they are one whole list of the asker's own, else why not."""
    spans = _spans(question, texts)
    if isinstance(spans, str):
        return spans
    return _inside_a_quote(question, spans) or _not_a_whole_set(question, spans) or spans


def _spans(question: str, texts: list[str]) -> list[tuple[int, int]] | str:
    """Where each option stands in the question, as one list in order, or why they do not.

    The list may start at any place the first option is written ("Is X ...? Answer X or Y.");
    a word every option has before it ("a", "to") is part of each."""
    patterns = [_option_pattern(text) for text in texts]
    first = list(patterns[0].finditer(question))
    if not first:
        return f"the option {texts[0]!r} is not written in the question"
    problem = ""
    for match in first:
        spans = [match.span()]
        for index in range(1, len(texts)):
            found = patterns[index].search(question, spans[-1][1])
            if found is None:
                return f"the option {texts[index]!r} is not written in the question"
            gap = question[spans[-1][1] : found.start()]
            shared = _SHARED.search(gap)
            between = gap[: shared.start()] if shared else gap
            # a separator stands between two options: words side by side are no list
            if not _GAP.fullmatch(between) or not (between.strip() or "\n" in between):
                problem = (
                    f"the options are not one list: {texts[index - 1]!r} and {texts[index]!r} "
                    f"stand apart ({gap[:40]!r})"
                )
                break
            spans.append(found.span())
        else:
            return _with_shared_word(question, spans)
    return problem


def _option_pattern(text: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(word) for word in text.split())
    # An option is a whole span: "a bird" is no option inside "a birdhouse".
    before = r"(?<!\w)" if text[0].isalnum() else ""
    after = r"(?!\w)" if text[-1].isalnum() else ""
    return re.compile(rf"{before}{words}{after}", re.IGNORECASE)


def _with_shared_word(question: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans, each widened by the word every one of them has just before it; where not
    all have one, an article before an option is its own where another option has one ("a
    financial institution or the edge of a river")."""
    words = [_SHARED.search(question, 0, start) for start, _ in spans]
    if not all(words):
        return _with_articles(question, spans)
    said = {word.group("word").casefold() for word in words if word}
    if len(said) > 1 and not said <= _ARTICLES:
        return spans
    return [(word.start(), end) for word, (_, end) in zip(words, spans, strict=True) if word]


def _with_articles(question: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    before = [_ARTICLE_BEFORE.search(question, 0, start) for start, _ in spans]
    opens = [bool(_ARTICLE_OPENS.match(question, start, end)) for start, end in spans]
    if sum(opens) + sum(map(bool, before)) < 2 or not any(opens):
        return spans
    return [
        (article.start() if article else start, end)
        for article, (start, end) in zip(before, spans, strict=True)
    ]


def _not_a_whole_set(question: str, spans: list[tuple[int, int]]) -> str:
    """Why the list is not the whole closed set the question asks from, or "": examples
    ("like Max or Bella"), a list that heads an open question, or part of a list written one
    item a line (the lines just before or after it are items too)."""
    start, end = spans[0][0], spans[-1][1]
    if _EXAMPLES.search(question[:start]):
        return "the options are examples, not a closed set"
    commas = any("," in question[left:right] for (_, left), (right, _) in itertools.pairwise(spans))
    if commas and re.search(r",\s*$", question[:start]):
        # "claim A, claim B, both, or neither" read as "both", "neither": a list separated by
        # commas that a comma opens has items before it
        return "the options are the end of a longer list"
    if _HEADS_AN_OPEN_QUESTION.match(question, end):
        return "the options head a question that none of them answers"
    numbers = all(_NUMBER.fullmatch(question[left:right]) for left, right in spans)
    if numbers and (_OF.search(question[:start]) or _QUANTITY.match(question, end)):
        return "the numbers are what is counted or computed on, not options"
    lines = question.splitlines(keepends=True)
    offsets = [sum(len(line) for line in lines[:index]) for index in range(len(lines))]
    first = max(index for index, offset in enumerate(offsets) if offset <= start)
    last = max(index for index, offset in enumerate(offsets) if offset < end)
    if _LINE_ITEM.match(lines[first]):
        before = first > 0 and _LINE_ITEM.match(lines[first - 1])
        after = last + 1 < len(lines) and _LINE_ITEM.match(lines[last + 1])
        if before or after:
            return "the options are part of a longer list, one item a line"
    return ""


def _inside_a_quote(question: str, spans: list[tuple[int, int]]) -> str:
    """Why the options are material, or "": the list lies inside one quotation ("Rewrite:
    'Fix it or leave.'", "What does 'yes or no' mean?"; options quoted one by one, "'who' or
    'whom'", are not), or a request that is not to answer follows it ("(a) … (b) …. Help me
    weigh them.")."""
    start, end = spans[0][0], spans[-1][1]
    for quote in _QUOTED.finditer(question):
        if quote.start() < start and end < quote.end():
            return f"the options lie inside quoted material: {quote.group(0)!r:.80}"
    # the sentences after the one the list ends
    rest = re.split(r"[.!?\n]", question[end:], maxsplit=1)
    after = asker_instruction(rest[1]) if len(rest) > 1 else None
    if after:
        return f"the options are followed by a request that is not to answer: {after}"
    return ""


def _labels(question: str, spans: list[tuple[int, int]]) -> tuple[str, ...] | str:
    """The label written just before each option, where all have one that run in order from
    the first ("A", "a", "1", "i"); () where none has; else why not."""
    found = [_LABEL_BEFORE.search(question[max(0, start - 12) : start]) for start, _ in spans]
    if not any(found):
        return ()
    labels = [match.group("label") for match in found if match]
    if len(labels) < len(spans):
        return "some options stand after a label and some do not"
    count = len(labels)
    runs = [list(run[:count]) for run in _LABEL_RUNS]
    runs += [[str(number) for number in range(1, count + 1)], list(_ROMAN[:count])]
    if labels in runs or [label.lower() for label in labels] == list(_ROMAN[:count]):
        return tuple(labels)
    return f"the labels {labels} do not run in order from the first"
