"""Tasks on a question: text that treats a question and its options as material, not as asked.

Used by `engine.domain.options`: options read from a text answer it only when whoever wrote the
text is asking the options' question. "Rewrite this multiple-choice item so …:\\nWhich is a
noun?\\n(A) run …", "Translate this exam question into French: …", "Explain why each wrong
option is wrong: …" and "Format this question as JSON: …" hold a well-formed item, but the
writer asks for a rewrite, a translation, an explanation or a format; choosing an option
answers none of them (held-out set 6 had five such texts read as lettered options).

Two shapes, each a closed grammatical frame:

- an imperative whose verb acts on text ("rewrite", "translate", "explain", "format", …)
  opening a clause of the stem, with no verb of answering in it ("Evaluate the claim and reply
  true/false" asks for the answer), where the clause names the item ("this question", "each
  option") or ends in a colon or a line break, so that what follows is its material;
- a question that names the item ("this question", "the options") and neither opens with
  "which", "what" or "who", the words the options' own question opens with, nor asks how it is
  answered ("How many options does this question have …?").

An imperative that names nothing ("Turn left." inside a puzzle, "Explain your answer." after
the options) and a one-word label ("Review: …") are left alone: held-out sets 1 to 6 hold
fifteen questions with options whose stem has such a clause, and the broader rule (any clause
opening with a task verb, any sentence naming the item) refused all fifteen.

>>> task_on_the_item("Translate this exam question into French: Which animal is a reptile?")
"'translate' acts on the text: 'Translate this exam question into French'"
>>> task_on_the_item("Answer the following question. Which animal is a reptile?") is None
True
"""

import re

from engine.domain.option_questions import NAMED
from engine.domain.sentences import words_of

__all__ = ["task_on_the_item"]

# Verbs whose object is a text: to do them is to produce a new text or a judgement of the old
# one, never to pick one of its options. Verbs of choosing and answering ("choose", "pick",
# "answer", "write", "give", "circle") are left out: they are how a question asks for its option.
_TASKS = frozenset(
    words_of(
        "rewrite reword rephrase paraphrase translate explain justify format convert summarise "
        "summarize critique evaluate assess count list describe check proofread improve grade "
        "review edit fix correct turn simplify shorten lengthen expand reorder shuffle generate "
        "create draft design analyse analyze annotate render encode"
    )
)
# Words that may precede an imperative's verb without changing it: "Please now rewrite …".
_LEAD_INS = frozenset(words_of("please now then also kindly first next finally and"))
# The item named as an object: "this question", "the following multiple-choice item", "these
# options", "each wrong option", "the answer choices", "the distractors".
_THE_ITEM = re.compile(
    r"\b(?:this|that|the\s+(?:following|above|below)|these|those|each|every|all)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:questions?|items?|options?|choices?|distractors?|answers?\s+choices?)"
    r"\b|\bthe\s+(?:[\w-]+\s+)?(?:options|choices|distractors)\b",
    re.IGNORECASE,
)
# Openers of a sentence that asks the options' own question or tells how to answer it: "Which
# of the options is right?", "Choose one of the following options.", "Answer this question.".
_ASKS_THE_ITEM = frozenset(
    words_of(
        "which what who whom choose pick select answer reply respond circle mark tick identify "
        "read consider look use"
    )
)
# Verbs of answering inside a clause: "Evaluate the claim and reply true/false only:" and "How
# would a typical person answer this question …?" ask for the answer the options give; so does
# a clause naming its answer space ("Evaluate (true/false): …").
_ANSWERING = frozenset(
    words_of(
        "answer answers answered reply respond choose pick select say decide determine classify "
        "label circle mark tick"
    )
)
# A sentence ends at . ! ? or a line break, and a clause at a colon or a semicolon too: the
# instruction before "Which …?" in "Explain why each wrong option is wrong: Which …?" is its
# own clause.
_CLAUSE = re.compile(r"[^.!?:;\n]+[.!?:;]*")


def task_on_the_item(stem: str) -> str | None:
    """Why `stem` (a question without its options) sets a task on the item, or None."""
    for clause in _CLAUSE.findall(stem):
        words = words_of(clause)
        while words and words[0] in _LEAD_INS:
            words = words[1:]
        if len(words) < 2 or _ANSWERING & set(words) or _names_answers(clause):
            continue
        said = " ".join(clause.split()).rstrip(".!?:;")
        names_item = _THE_ITEM.search(clause) is not None
        introduces = clause.rstrip(" \t").endswith(":") or _ends_line(stem, clause)
        if words[0] in _TASKS and (names_item or introduces):
            return f"'{words[0]}' acts on the text: {said!r:.80}"
        if names_item and clause.rstrip().endswith("?") and words[0] not in _ASKS_THE_ITEM:
            return f"a question about the item, not the item's question: {said!r:.80}"
    return None


def _names_answers(clause: str) -> bool:
    """ "Evaluate (true/false):" names the answer it asks for, as "reply" does."""
    return any(pattern.search(clause) for pattern in NAMED.values())


def _ends_line(stem: str, clause: str) -> bool:
    """Whether `clause` runs to the end of its line, with more lines after it."""
    at = stem.find(clause)
    after = stem[at + len(clause) :]
    return after.startswith("\n") and bool(after.strip())
