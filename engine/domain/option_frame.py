"""The whole text around a reading of options, accounted for: one request, nothing else asked.

A reader (`engine.domain.option_blocks`, `option_lists`, `option_questions`) finds a structure,
an option block or a question's alternatives; whether the writer is *asking* that structure's
question is a property of the rest of the text. Seven held-out sets showed the same four
classes of wrong reading again and again, each time in words no rule had listed: a task set on
a quiz item ("Reformat the following as JSON: …", "Make this question harder by adding …"),
alternatives that are not the answer asked for ("…, give or take?", a function's parameters),
a request put as a question, and a second question beside the options' own. Listing the verbs,
idioms and requests seen so far did not converge, so this module inverts the rule: the text
must be made only of parts the reading accounts for, and anything else refuses.

The parts, in order:

- material, which the question is about and may say anything: a quoted span, a labelled line
  ("Passage: …", "Review: …", "A: …" in a dialogue) whose label does not put the asker's own
  question ("Question: …", "Task: …"), and whatever follows a request that ends in a colon
  ("What is the answer to the following problem?: …", "Classify this ticket as …: …");
- context: the asker's sentences that state something;
- the request, once: a question, or an instruction whose verb is one of answering or choosing
  ("Choose …", "Answer …", "Read …", "Consider …"); an earlier question counts only where it is
  the same question restated (BIG-bench's temporal_sequences asks it twice);
- after an option block, only what tells how to answer ("Answer with the letter.", "A:").

So an instruction whose verb is not one of answering (any verb, not a listed one) refuses, as
does a second question, a request put as a question ("Can you …?", "How can I …?"), and a code
block, whose parentheses and "or"s no reader can tell from a question's. An instruction is told
from a statement by grammar, not by a verb list: it opens with a word of no closed class that is
followed at once by its object ("Reformat the", "Make this", "Write an"), where a statement's
subject is followed by its verb ("Marta tells the truth."). A statement whose subject is a bare
noun before a determiner ("Students who …") is refused too; that costs recall, never precision.
"""

import re

from engine.domain.option_requests import is_request
from engine.domain.sentences import AUXILIARIES, WH_WORDS, words_of

__all__ = ["INSTRUCTING", "asker_instruction", "frame_problem", "instructs"]

# Verbs of answering and choosing, and of reading what the question is about: the instructions
# a question with options is posed in ("Read the passage and choose …", "Consider the table."),
# and the verbs of putting one thing in a class that `option_lists` reads ("Rate the severity
# of this outage (minor, major): …").
_ANSWERING = frozenset(
    words_of(
        "answer choose pick select identify decide determine classify categorise categorize label "
        "reply respond circle mark tick say state tell name read consider look use assume suppose "
        "imagine note remember recall find solve complete fill guess spot let tag triage route "
        "assign rate"
    )
)
# Verbs of giving that are answering only when what they give is the answer: "Write the letter
# of the right option." is, "Write an explanation of why the answer is B." is not.
_GIVING = frozenset(words_of("write give type output provide return put spell"))
# The verbs an instruction about answering opens with, for readers that must tell such an
# instruction from an option ("Answer A, B, C or D: …" names no option "Answer A").
INSTRUCTING = _ANSWERING | _GIVING
_GIVES_THE_ANSWER = re.compile(
    r"^\W*(?:please\s+|just\s+)?(?:write|give|type|output|provide|return|put|spell)(?:\s+out)?\s+"
    r"(?:[\w']+\s+){0,3}?(?:letter|option|answer|choice|label|number|word|name|in\s+full)s?\b"
    r"(?![^.]*\b(?:why|explain|explanation|reason|because|more|another|new|extra))",
    re.IGNORECASE,
)
# Words of closed classes that open statements and questions but never an instruction: articles,
# determiners, pronouns, prepositions, conjunctions, adverbs of time and place.
_CLOSED = (
    frozenset(
        words_of(
            "a an the this that these those it its he she they we i you my our your his her their "
            "there here in on at for of from by with to into onto over under after before during "
            "between among amongst about above below as if when while although though because "
            "since unless until whether and or but nor so yet then now also only just not no yes "
            "each every all both some any many most few several one two three four five another "
            "other such today yesterday tomorrow given based according according assuming "
            "suppose let us me him them thus hence however moreover further furthermore finally "
            "first next last again still even already q"
        )
    )
    | AUXILIARIES
    | WH_WORDS
)
# What an instruction's verb is followed by: its object ("the", "this", "me"), or a clause it
# asks for ("why", "how", "whether").
_OBJECT_OPENERS = frozenset(
    words_of(
        "the this these those a an me us it them my our your his her their each every all both "
        "why how whether"
    )
)
# Verbs whose object is a text, which an instruction acts on whatever follows them ("Translate
# into French: …", "Summarise:"); the grammar above catches those followed by their object.
_TASKS = frozenset(
    words_of(
        "rewrite reword rephrase paraphrase translate explain justify format reformat convert "
        "summarise summarize critique evaluate assess proofread improve grade review edit shorten "
        "lengthen expand reorder shuffle rank sort arrange order compare contrast prioritise "
        "prioritize annotate encode"
    )
)
# A task joined to another instruction: "Read the question and explain your reasoning."
_JOINED_TASK = re.compile(rf"\band\s+(?:then\s+)?({'|'.join(sorted(_TASKS))})\b", re.IGNORECASE)
# A name with an epithet opens a statement, not an instruction: "Pepin the Short's wife …".
_EPITHET = re.compile(r"^\W*[A-Z][a-z]+\s+the\s+[A-Z]")
_LEAD_INS = frozenset(words_of("please now then also kindly first next finally and so ok okay"))
# Labels whose line is the asker's own words; any other label's line is material.
_ASKERS_LABELS = frozenset(
    words_of("q question query problem task instruction instructions request prompt exercise")
)
_LABELLED = re.compile(r"^[ \t]*(?P<label>[A-Za-z][\w .'-]{0,24}?)[ \t]*:(?:[ \t]+|$)(?P<rest>.*)$")
_LABEL_WORDS = 3
# A single-quoted span may hold apostrophes inside words ('I won't ask again.').
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”]*”|‘[^’\n]*’|(?<!\w)'(?:[^'\n]|(?<=\w)'(?=\w))*'(?!\w)")
# A sentence ends at ".", "!", "?" or ":" before a space or the line's end ("10:30", "1.5" end
# none); "?:" ends one too ("What is the answer to the following problem?:when …").
_SENTENCE = re.compile(r"(?:[^.!?:\n]|[.!?:](?=[^\s:\"'”’)]))+(?:[.!?]+[\"'”’)]*:?|:)?")
# An answer line a prompt leaves to fill ("A:", "Answer:", "Possible times:").
_ANSWER_LINE = re.compile(r"^[ \t]*[A-Za-z][\w ]{0,30}:[ \t]*$")
# How to answer, after the options: "Answer with the letter only.", "Reply A, B or C.".
_ANSWER_FORM = re.compile(
    r"^[\W]*(?:(?:just|only)\s+the\s+(?:letter|number|name)\b"
    r"|(?:please\s+|just\s+|now\s+)?(?:answer|reply|respond|write|choose|pick|select|give|state|"
    r"say|type|use|spell|output)\b[^\n]*(?:\b(?:letters?|option|choice|one|number|name|full|"
    r"words?|text|only)\b|(?-i:\b[A-Z1-9](?:,\s*[A-Z1-9])*,?\s+or\s+[A-Z1-9]\b)))",
    re.IGNORECASE,
)
_RESTATED_WORDS = 3
# The item itself named as an object: "this question", "these options", "the answer choices".
_THE_ITEM = re.compile(
    r"\b(?:this|that|these|those|each|every|all)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:questions?|items?|options?|choices?|distractors?)\b"
    r"|\bthe\s+(?:[\w-]+\s+)?(?:options|choices|distractors)\b",
    re.IGNORECASE,
)
_PICKING = frozenset(words_of("which what who whom whose"))
_NAMED_SPACE = re.compile(r"\b(?:yes\s*(?:or|/)\s*no|true\s*(?:or|/)\s*false)\b", re.I)
_FENCED = re.compile(r"```[^\n]*\n.*?```", re.DOTALL)
# A question that only names the answer space restates the question's form: "… Yes or no?".
_NAMED_ONLY = re.compile(r"^\W*(?:yes\s*(?:or|/)\s*no|true\s*(?:or|/)\s*false)\W*$", re.I)
# A question about answering a question frames the question that follows it: "How would a
# typical person answer each of the following questions about causation?" (BIG-bench).
_FRAMING = re.compile(r"\banswer\b.*\bquestions?\b", re.IGNORECASE)


def frame_problem(head: str, tail: str, *, needs_request: bool) -> str | None:
    """Why the text around a reading holds more than the reading accounts for, or None.

    `head` is the text before the options (all of it for a question's own alternatives), `tail`
    the text after them; `needs_request`: the reading's structure asks nothing by itself (an
    option block), so the head or tail must hold the request.
    """
    head = _FENCED.sub("\n", head)  # code the question is about, closed before the options
    if "```" in head + tail:
        return "a code block around the options: its parentheses and 'or's are not options"
    if tail.lstrip().startswith("?"):  # the options inside the question: "Is it (A) 12 or (B) 15?"
        head, tail = head.rstrip() + "?", tail.lstrip()[1:]
    head_parts, tail_parts = _asker_sentences(head), _asker_sentences(tail)
    if isinstance(head_parts, str) or isinstance(tail_parts, str):
        return head_parts if isinstance(head_parts, str) else str(tail_parts)
    after = [s for s in tail_parts if not (s.endswith("?") or _ANSWER_FORM.match(s))]
    questions = [sentence for sentence in head_parts + tail_parts if sentence.endswith("?")]
    instructions = [s for s in head_parts if not s.endswith("?") and _first(s) in _ANSWERING]
    if after:
        return f"the options are followed by more than how to answer: {after[0]!r:.80}"
    if needs_request and not questions and not instructions:
        return "nothing outside the material asks for a choice"
    return _questions_problem([q for q in questions if not _NAMED_ONLY.match(q)])


def _questions_problem(questions: list[str]) -> str | None:
    """Why the asker's questions are not one question whose answers are the options."""
    if not questions:
        return None
    *earlier, final = questions
    key = words_of(final)[:_RESTATED_WORDS]
    other = next(
        (q for q in earlier if words_of(q)[:_RESTATED_WORDS] != key and not _FRAMING.search(q)),
        None,
    )
    about = next((question for question in questions if _about_the_item(question)), None)
    problems = (
        other and f"two questions: {other!r:.60} and {final!r:.60}",
        about and f"a question about the item, not the item's question: {about!r:.80}",
        _first(final) in AUXILIARIES
        and is_request(final, final)
        and f"a request put as a question: {final!r:.80}",
    )
    return next((problem for problem in problems if problem), None)


def _about_the_item(question: str) -> bool:
    """ "How many options does this question have?": a question whose object is the item, not
    one the options answer, which open with the words that pick ("Which of these options …?")."""
    if _FRAMING.search(question):
        return False  # "How would most people answer this question?" asks for its answer
    return _THE_ITEM.search(question) is not None and _first(question) not in _PICKING


def _words(sentence: str) -> list[str]:
    """The sentence's words after its lead-ins ("please", "now", "and so", ...)."""
    words = words_of(sentence)
    while words and words[0] in _LEAD_INS:
        words = words[1:]
    return words


def _first(sentence: str) -> str:
    words = _words(sentence)
    return words[0] if words else ""


def _asker_sentences(text: str) -> list[str] | str:
    """The asker's own sentences in `text`, material left out; or why one is an instruction
    that is not to answer. A question or an instruction to answer that ends in a colon
    introduces material, and the sentences after it are not the asker's."""
    sentences: list[str] = []
    for raw_line in _QUOTED.sub('""', text).splitlines():
        line, header_problem = _askers_part(raw_line)
        if header_problem:
            return header_problem
        for match in _SENTENCE.finditer(line or ""):
            sentence = match.group(0).strip()
            if not words_of(sentence) or (
                _ANSWER_LINE.match(sentence) and len(words_of(sentence)) <= _LABEL_WORDS
            ):
                continue
            problem = _instruction_problem(sentence)
            if problem:
                return problem
            introduces = sentence.endswith(":")
            sentence = sentence.rstrip(":").rstrip()
            unmarked = not sentence.endswith((".", "!", "?", ":"))
            if (introduces or unmarked) and _first(sentence) in WH_WORDS | AUXILIARIES:
                sentence = sentence.rstrip("?") + "?"  # "Which sentence has the right order:"
            sentences.append(sentence)
            if introduces and (sentence.endswith("?") or _first(sentence) in _ANSWERING):
                return sentences  # what follows "…problem?:" or "Classify it as …:" is material
    return sentences


def _askers_part(line: str) -> tuple[str | None, str | None]:
    """The part of `line` in the asker's own words (None for a labelled line of material:
    "Passage: …", "B: Sure."; the text after an asker's label: "Question: …"), and why a
    header is an instruction that is not to answer ("Translate into Spanish:"), or None."""
    labelled = _LABELLED.match(line)
    if not labelled or len(labelled.group("label").split()) > _LABEL_WORDS:
        return line, None
    label = labelled.group("label")
    if not labelled.group("rest").strip() and len(label.split()) > 1:
        problem = _instruction_problem(label + ":")
        if problem:
            return None, problem
    return (labelled.group("rest") if _ASKERS_LABELS & set(words_of(label)) else None), None


def _answers_named(sentence: str) -> bool:
    """ "Evaluate the claim and reply true/false only:", "Evaluate (true/false):": the sentence
    asks for the named answer, with a verb of answering or the space in brackets."""
    named = _NAMED_SPACE.search(sentence)
    if named is None:
        return False
    return bool(_ANSWERING & set(words_of(sentence))) or sentence[: named.start()].endswith("(")


def _instruction_problem(sentence: str) -> str | None:
    """Why `sentence` is an instruction whose verb is not one of answering, or None."""
    words = _words(sentence)
    if len(words) < 2 or sentence.rstrip(":").endswith("?"):
        return None
    verb, after = words[0], words[1]
    joined = _JOINED_TASK.search(sentence)
    if verb in _GIVING:
        verdict = None if _GIVES_THE_ANSWER.match(sentence) else "asks for more than an option"
    elif verb in _TASKS:
        verdict = None if _answers_named(sentence) else "acts on the text"
    elif verb in _ANSWERING or verb in _CLOSED or verb.endswith("ing") or verb.isdigit():
        verdict = None
    else:
        opens = after in _OBJECT_OPENERS and not _EPITHET.match(sentence)
        verdict = "opens an instruction that is not to answer" if opens else None
    if verdict is None and joined and not _answers_named(sentence):
        verb, verdict = joined.group(1).casefold(), "is a second instruction, joined by 'and'"
    return f"'{verb}' {verdict}: {sentence!r:.80}" if verdict else None


def asker_instruction(text: str) -> str | None:
    """Why `text` holds an instruction of the asker's own whose verb is not one of answering
    ("Convert these to Celsius: …", "Help me think it through."), material left out; or None."""
    parts = _asker_sentences(text)
    return parts if isinstance(parts, str) else None


def instructs(context: str) -> bool:
    """Whether `context` before a question is an instruction other than to answer ("Find a
    better wording for this question, …"), not material the question is about."""
    return _instruction_problem(context) is not None
