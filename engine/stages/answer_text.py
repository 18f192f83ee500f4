"""What the answer stage keeps of the model's reply: its own words, and notes on how it ended.

A small model often writes the prompt back before (or instead of) answering: the template's
instructions, "Question: ...", a tool's label. Those lines are the program's words, not the
answer, and they mislead both the reader and the checker: the 135M model echoed the template's
"End with a line 'Answer: <answer>'" as "End with a line 'Answer: 17 * 23'", and the checker read
that line as the answer to "What is 17 * 23?". So lines that repeat the prompt's own text are
removed (data the prompt carried, such as a tool's output, stays: repeating it is answering).

Two endings are named rather than hidden: a loop (the same phrase again and again) and a cut-off
at the token limit (the provider's finish reason "length", or as many tokens as were allowed).

>>> reply = "Question: What is 2 + 2?\\n2 + 2 = 4\\nEnd with a line 'Answer: 2 + 2'"
>>> prompt = "Question: What is 2 + 2?\\nWork it out.\\nEnd with a line 'Answer: <answer>'."
>>> kept = keep_answer(reply, prompt, finish_reason="stop", tokens=12, max_tokens=300)
>>> kept.text, kept.echoed, kept.cut_off
('2 + 2 = 4', 2, False)
>>> find_loop("Canberra. " * 17)
Loop(phrase='Canberra', times=17)
"""

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

__all__ = ["KeptAnswer", "Loop", "find_loop", "keep_answer", "scaffold_patterns"]

# A line of the prompt shorter than this (in words) is not matched: "Answer:" or "Steps:" may
# well start the model's own answer.
_MIN_SCAFFOLD_WORDS = 3
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

    def notes(self) -> dict[str, Any]:
        """The trace's record of the above (JSON-safe)."""
        return {
            "echoed_lines": self.echoed,
            "loop": None if self.loop is None else vars(self.loop),
            "cut_off": self.cut_off,
            "finish_reason": self.finish_reason,
        }


def keep_answer(
    reply: str, prompt: str, *, finish_reason: str | None, tokens: int, max_tokens: int
) -> KeptAnswer:
    """The reply without lines that repeat `prompt`'s own words, with its loop and cut-off."""
    patterns, openings = scaffold_patterns(prompt)
    kept: list[str] = []
    echoed = 0
    for line in reply.strip().splitlines():
        plain = _plain(line)
        if plain and any(pattern.fullmatch(plain) for pattern in patterns):
            echoed += 1
            continue
        opening = next((o for o in openings if plain.startswith(o) and plain != o), None)
        if opening is not None:  # "The calculator tool found: 42" keeps "42"
            echoed += 1
            kept.append(line.strip()[_opening_length(line.strip(), opening) :].strip())
        else:
            kept.append(line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    cut_off = finish_reason == "length" or (finish_reason is None and tokens >= max_tokens)
    return KeptAnswer(text, echoed, find_loop(text), cut_off, finish_reason)


def scaffold_patterns(prompt: str) -> tuple[list[re.Pattern[str]], list[str]]:
    """Whole-line patterns for the prompt's own lines (a placeholder matches anything), and the
    label lines ("... exactly:") a model may run on into its answer, both as `_plain` text."""
    outside = _FENCE.sub("\n", prompt)
    patterns, openings = [], []
    for line in outside.splitlines():
        plain = _plain(line)
        literal = _PLACEHOLDER.sub(" ", plain)
        if len(literal.split()) < _MIN_SCAFFOLD_WORDS:
            continue
        pieces = [re.escape(piece) for piece in _PLACEHOLDER.split(plain)]
        patterns.append(re.compile(".+?".join(pieces)))
        if plain.endswith(":") and not _PLACEHOLDER.search(plain):
            openings.append(plain)
    return patterns, openings


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
    text = re.sub(r"\*\*|__", "", text)
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
