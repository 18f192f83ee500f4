"""What the answer stage keeps of the model's reply: its own words, and notes on how it ended.

A small model often writes the prompt back before (or instead of) answering: the template's
instructions, "Question: ...", a tool's label. Those lines are the program's words, not the
answer, and they mislead both the reader and the checker: the 135M model echoed the template's
"End with a line 'Answer: <answer>'" as "End with a line 'Answer: 17 * 23'", and the checker read
that line as the answer to "What is 17 * 23?". So lines that repeat the prompt's own text are
removed (data the prompt carried, such as a tool's output, stays: repeating it is answering).

Two endings are named rather than hidden: a loop (the same phrase again and again) and a cut-off
at the token limit (the provider's finish reason "length", or as many tokens as were allowed).

A result to check (a search's passages, a tool that did not read the whole question) is data the
model should answer from, not the answer: lines that copy it (a passage heading with its source,
a long run of its words) are removed, since the 135M model pasted a corpus passage as its answer
to an arithmetic question. A degenerate answer is named: a run of digits ("Answer: 1234567890")
is no computed value, and an answer label written twice ("The answer is: Answer: Tokyo") is
scaffolding, cut to one.

>>> reply = "Question: What is 2 + 2?\\n2 + 2 = 4\\nEnd with a line 'Answer: 2 + 2'"
>>> prompt = "Question: What is 2 + 2?\\nWork it out.\\nEnd with a line 'Answer: <answer>'."
>>> kept = keep_answer(reply, prompt, finish_reason="stop", tokens=12, max_tokens=300)
>>> kept.text, kept.echoed, kept.cut_off
('2 + 2 = 4', 2, False)
>>> find_loop("Canberra. " * 17)
Loop(phrase='Canberra', times=17)
"""

import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["KeptAnswer", "Loop", "degeneracy", "find_loop", "keep_answer", "scaffold_patterns"]

# A line of the prompt shorter than this (in words) is not matched: "Answer:" or "Steps:" may
# well start the model's own answer.
_MIN_SCAFFOLD_WORDS = 3
LineTest = Callable[[str], object]  # truthy when a (`_plain`) line matches (repeats, copies)
# Placeholders a template writes for the model to fill: "<answer>", "<your answer>".
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,30}>")
# Fenced data in a prompt (`engine.stages.prompting.fence`, a tag on a line of its own): not
# scaffolding. The data rule names the same tags mid-sentence; those are not fences.
_FENCE = re.compile(
    r"^<(seed|tool_output|passage)\b[^>\n]*>\n.*?\n</\1>$", re.DOTALL | re.MULTILINE
)
_SEGMENT = re.compile(r"[\n.;!?,]+")
_RUN_OF_WORD = re.compile(r"\b(\w{2,})\b(?:\W+\1\b){4,}", re.IGNORECASE)
# A phrase of a few words written this often is a loop, however short the answer; a word or two
# ("x = 5", "yes") must come back more often, since working may well repeat it.
LOOP_TIMES = 3
SHORT_LOOP_TIMES = 5
# A line of the model's this long (in words) found whole in a result to check is a copy of it;
# shorter ones ("17 - 5 = 12") are what answering from the result looks like.
_MIN_COPIED_WORDS = 6
# A search tool's passage heading, "[2] Title (source)" (`engine.adapters.tools.search`).
_HEADING = re.compile(r"^\[\d+\]\s.*\(([^()\s]+)\)\s*$", re.MULTILINE)
# "The answer is: Answer: Tokyo", "Final answer: Answer: 4": a label run into a second label.
_DOUBLED_LABEL = re.compile(
    r"^[^\S\n]*(?:\*\*)?(?:the\s+)?(?:final\s+)?answer(?:\s+is)?\s*:?\s*(?:\*\*)??\s*"
    r"(?=(?:\*\*)?answer\s*:)",
    re.IGNORECASE | re.MULTILINE,
)
_FINAL_VALUE = re.compile(r"answer\s*(?:is)?\s*:?\s*\**\s*([-+]?[\d,]+)\s*\**\s*\.?\s*$", re.I)
_MIN_DIGIT_RUN = 5  # "12345": shorter runs are ordinary numbers
_MARKERS = re.compile(r"\*\*|__")  # bold and underline markers, which `_plain` drops
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class Loop:
    """A phrase the model wrote again and again."""

    phrase: str
    times: int


@dataclass(frozen=True)
class KeptAnswer:
    """The model's reply less the prompt it echoed, and how the reply ended."""

    text: str
    echoed: int  # lines (or line openings) removed because they repeat the prompt
    loop: Loop | None
    cut_off: bool  # stopped at the token limit: the end of the text is missing
    finish_reason: str | None
    copied: int = 0  # lines removed because they copy a result the model was to check
    degenerate: str | None = None  # why the text is no answer, or what scaffolding was cut

    def notes(self) -> dict[str, Any]:
        """The trace's record of the above (JSON-safe)."""
        return {
            "echoed_lines": self.echoed,
            "loop": None if self.loop is None else vars(self.loop),
            "cut_off": self.cut_off,
            "finish_reason": self.finish_reason,
            "copied_lines": self.copied,
            "degenerate": self.degenerate,
        }


def keep_answer(
    reply: str,
    prompt: str,
    *,
    finish_reason: str | None,
    tokens: int,
    max_tokens: int,
    to_check: str | None = None,
) -> KeptAnswer:
    """The reply without lines that repeat `prompt`'s own words or copy `to_check` (a result
    given to check, not to hand back), with its loop, cut-off and degeneracy named."""
    echoes, openings = scaffold_patterns(prompt)
    copies = _copy_test(to_check) if to_check else None
    kept: list[str] = []
    echoed = copied = 0
    for line in reply.strip().splitlines():
        plain = _plain(line)
        if plain and echoes(plain):
            echoed += 1
            continue
        if copies is not None and copies(plain):
            copied += 1
            continue
        opening = next((o for o in openings if plain.startswith(o) and plain != o), None)
        if opening is not None:  # "The calculator tool found: 42" keeps "42"
            echoed += 1
            kept.append(line.strip()[_opening_length(line.strip(), opening) :].strip())
        else:
            kept.append(line)
    text = _BLANK_LINES.sub("\n\n", "\n".join(kept)).strip()
    cut_off = finish_reason == "length" or (finish_reason is None and tokens >= max_tokens)
    text, degenerate = degeneracy(text)
    return KeptAnswer(text, echoed, find_loop(text), cut_off, finish_reason, copied, degenerate)


def _copy_test(data: str) -> LineTest:
    """Whether a line (as `_plain`) copies `data`: a passage heading's source, or a run of at
    least `_MIN_COPIED_WORDS` words found whole in it. The data is read once, not per line."""
    sources = [source.casefold() for source in _HEADING.findall(data)]
    flat = _plain(data.replace("\n", " "))

    def copies(plain: str) -> bool:
        if any(source in plain for source in sources):
            return True
        return len(plain.split()) >= _MIN_COPIED_WORDS and plain in flat

    return copies


def degeneracy(text: str) -> tuple[str, str | None]:
    """The text with a doubled answer label cut to one, and why it is degenerate (None: it is
    not): a final value that is a run of digits, or the label that was written twice.

    >>> degeneracy("The answer is: Answer: Tokyo")
    ('Answer: Tokyo', "an answer label written twice ('The answer is: Answer:'); cut to one")
    >>> degeneracy("Answer: 1234567890")[1]
    'the answer is a run of digits (1234567890), not a computed value'
    >>> degeneracy("17 * 23 = 391\\nAnswer: 391")[1] is None
    True
    """
    doubled = _DOUBLED_LABEL.search(text)
    if doubled is not None:
        label = text[doubled.start() : doubled.end()].strip() + " Answer:"
        text = text[: doubled.start()] + text[doubled.end() :]
        return text.strip(), f"an answer label written twice ({label!r}); cut to one"
    last = text.strip().splitlines()[-1] if text.strip() else ""
    value = _FINAL_VALUE.search(last)
    digits = value.group(1).replace(",", "").lstrip("+-") if value else ""
    if _is_digit_run(digits):
        return text, f"the answer is a run of digits ({digits}), not a computed value"
    return text, None


def _is_digit_run(digits: str) -> bool:
    """Counting up or down ("1234567890", "98765"), or one digit again and again ("000000")."""
    if len(digits) < _MIN_DIGIT_RUN or not digits.isdigit():
        return False
    steps = {(int(b) - int(a)) % 10 for a, b in itertools.pairwise(digits)}
    return steps in ({1}, {9}) or (len(set(digits)) == 1 and len(digits) > _MIN_DIGIT_RUN)


def scaffold_patterns(prompt: str) -> tuple[LineTest, list[str]]:
    """Whether a line (as `_plain`) repeats one of the prompt's own lines whole (a placeholder
    matches anything), and the label lines ("... exactly:") a model may run on into its answer,
    both as `_plain` text.

    >>> echoes, openings = scaffold_patterns("Question: what is 2 + 2?\\nAnswer with <answer> here")
    >>> [echoes(line) for line in ("answer with 4 here", "question: what is 2 + 2?", "4")]
    [True, True, False]
    >>> openings
    []
    """
    outside = _FENCE.sub("\n", prompt)
    literals: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    openings = []
    for line in outside.splitlines():
        read = _line_scaffold(line)
        if read is None:
            continue
        whole, opening = read
        if isinstance(whole, str):
            literals.add(whole)
        else:
            patterns.append(whole)
        if opening is not None:
            openings.append(opening)

    # One set lookup for the lines without a placeholder (most of them), where a test per prompt
    # line for every line of the reply was a third of the answer stage's time.
    def echoes(plain: str) -> bool:
        return plain in literals or any(pattern.fullmatch(plain) for pattern in patterns)

    return echoes, openings


# Why a cache: most of a prompt's lines are its template's and the system text, the same lines
# decision after decision; reading each again cost tens of microseconds per answer. What a line
# gives is a function of the line alone (a pattern, or the line itself: both immutable).
@functools.lru_cache(maxsize=4096)
def _line_scaffold(line: str) -> tuple[str | re.Pattern[str], str | None] | None:
    """What one prompt line matches whole (itself as `_plain` text, or a pattern where it holds
    placeholders) and, for a label line, its opening; None for a line too short to match."""
    plain = _plain(line)
    literal = _PLACEHOLDER.sub(" ", plain)
    if len(literal.split()) < _MIN_SCAFFOLD_WORDS:
        return None
    if literal != plain:  # placeholders: a pattern, compiled once per template line
        return _placeholder_pattern(plain), None
    # A line without a placeholder matches only itself: a string comparison, where compiling it
    # cost a fraction of a millisecond per decision (it holds the question, new each time).
    return plain, plain if plain.endswith(":") else None


@functools.lru_cache(maxsize=1024)
def _placeholder_pattern(plain: str) -> re.Pattern[str]:
    """A line with placeholders as a pattern; cached, since such lines are the templates' own."""
    return re.compile(".+?".join(re.escape(piece) for piece in _PLACEHOLDER.split(plain)))


def find_loop(text: str) -> Loop | None:
    """The phrase (a line, a sentence, a clause, or one word run on) written `LOOP_TIMES` times
    or more (`SHORT_LOOP_TIMES` for a word or two); of several, the one repeated most often."""
    segments = [s for s in (_plain(piece) for piece in _SEGMENT.split(text)) if s]
    loops = [
        Loop(_original(text, phrase), times)
        for phrase, times in Counter(segments).items()
        if times >= _times_for(phrase)
    ]
    run = _RUN_OF_WORD.search(text)
    if run is not None:  # the run's own length: the word may also appear before it
        word = run.group(1)
        times = len(re.findall(rf"\b{re.escape(word)}\b", run.group(0), re.IGNORECASE))
        loops.append(Loop(word, times))
    return max(loops, key=lambda loop: (loop.times, len(loop.phrase)), default=None)


def _times_for(phrase: str) -> int:
    return LOOP_TIMES if len(phrase.split()) >= _MIN_SCAFFOLD_WORDS else SHORT_LOOP_TIMES


def _plain(text: str) -> str:
    """A line as compared: no surrounding quotes, bold markers or final period; one space."""
    if "**" in text or "__" in text:  # the only markers removed: most lines have none
        text = _MARKERS.sub("", text)
    return " ".join(text.split()).strip(" \"'`.").casefold()


def _original(text: str, plain: str) -> str:
    """The phrase as the model wrote it (`plain` is case-folded)."""
    for piece in _SEGMENT.split(text):
        if _plain(piece) == plain:
            return " ".join(piece.split()).strip(" \"'`.")
    return plain


def _opening_length(line: str, opening: str) -> int:
    """How many characters of `line` the (case-folded, one-spaced) `opening`, which ends in a
    colon, covers."""
    for colon in (match.end() for match in re.finditer(":", line)):
        if _plain(line[:colon]) == opening:
            return colon
    return 0
