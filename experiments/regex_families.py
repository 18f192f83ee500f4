"""The regex task families the engine keyed its policies by before kinds were discovered.

Kept as a baseline for experiments only (the engine no longer sees it: its kinds of query come
from named tasks and embeddings, `engine.domain.kinds`): the online evaluation runs the engine
with each query's regex family given as its named task, beside discovered kinds and true
families (docs/benchmarks.md, "Kinds of query").

What follows is the module's reasoning as it stood when the engine used it.

Why these features: the measurements in OFFLINE.md show that which reasoning path wins depends on
the kind of task (addition, first-letter and multiple-choice questions each favour a different
answer format) and that a bandit learning per task family beats the best single template by about
ten points. A one-hot family makes a linear contextual policy exactly a per-family policy, with
one independent weight per family, and keeps its design matrix well-conditioned; the bias term,
under the policy's ridge prior, pools what is common to all families, so the first query of a
rarely seen family starts from the overall mean rather than from nothing. Richer features (length,
embeddings) would let the policy generalise across families, but each added dimension slows
learning, and nothing measured so far says it pays.

The family comes from ordered regular-expression rules, first match wins; the order resolves
overlaps (a multiple-choice question about dates is multiple choice; "3 days after Monday" is a
date, not arithmetic). The rules are cheap (microseconds) and deterministic, and a query that no
rule claims is "open_ended".

>>> family("What is 17 + 25?")
'arithmetic'
>>> feature_names()[-1], query_features("What is 17 + 25?")[FAMILIES.index("arithmetic")]
('bias', np.float64(1.0))
"""

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["FAMILIES", "describe_context", "family", "feature_names", "query_features"]

FAMILIES = (
    "arithmetic",
    "letter_position",
    "letters",
    "date",
    "unit_conversion",
    "comparison",
    "logic_puzzle",
    "multiple_choice",
    "classification",
    "factual",
    "open_ended",
)

# "one" and "half" are left out: "which one", "no one" and "one of" are not numbers to compute with.
_NUMBER_WORDS = (
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|hundred|thousand|dozen)"
)
# Atomic, and only where a digit run starts: otherwise a pattern like `{_NUMBER}.*total` tries every
# split of a long digit run at every start, and a pasted 2,000-digit number took minutes.
_NUMBER = rf"(?:(?<![\d.,])(?>\d+(?:[.,]\d+)*)|\b{_NUMBER_WORDS}\b)"
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
_WEEKDAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_UNITS = (
    r"(?:km|kilomet(?:er|re)s?|met(?:er|re)s?|cm|centimet(?:er|re)s?|mm|millimet(?:er|re)s?|"
    r"m|miles?|mi|feet|foot|ft|inch(?:es)?|yards?|yd|kg|kilograms?|grams?|g|mg|pounds?|lbs?|"
    r"ounces?|oz|tons?|tonnes?|stones?|celsius|fahrenheit|kelvin|°c|°f|degrees?|liters?|litres?|"
    r"l|ml|millilit(?:er|re)s?|gallons?|quarts?|pints?|cups?|seconds?|secs?|minutes?|mins?|"
    r"hours?|hrs?|days?|weeks?|months?|years?|mph|km/h|kph|bytes?|kb|mb|gb|tb|acres?|hectares?)"
)
_COMPARATIVES = (
    r"(?:bigger|larger|greater|smaller|less|fewer|more|higher|lower|heavier|lighter|taller|"
    r"shorter|older|younger|faster|slower|longer|cheaper|hotter|colder|warmer|closer|farther)"
)


def _rule(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


# (family, pattern) in priority order; the first pattern that matches decides.
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "multiple_choice",
        _rule(
            r"(?:^|[\s(])A[).:]\s*\S.*(?:^|[\s(])B[).:]\s*\S",
            r"\b(?:options?|choices?)\s*:",
            r"\bchoose (?:one|from)\b",
            r"\bwhich of the following\b",
        ),
    ),
    (
        # Apart from the other letter tasks: asking for a letter by its position and counting
        # letters favour different answer formats (the replay experiment measured it), so a
        # policy must be able to learn them apart.
        "letter_position",
        _rule(
            r"\b(?:first|last|second|third|fourth|fifth|middle|next|\d+(?:st|nd|rd|th)) letter\b",
            r"\b(?:starts|begins|ends) with (?:the|which|what) letter\b",
        ),
    ),
    (
        "letters",
        _rule(
            r"\bthe letters?\b",
            r"\bletters? (?:in|of|does|are|has|have)\b",
            r"\bhow many (?:letters|vowels|consonants|characters|syllables)\b",
            r"\bhow many ['\"]?[a-z]['\"]?(?:'?s)? (?:are )?(?:there )?in\b",
            r"\b(?:vowels?|consonants?|anagrams?|palindromes?|alphabetical(?:ly)?)\b",
            r"\bspell(?:ed|ing|s)?\b",
            r"\b(?:reversed?|backwards?)\b.*\bword\b",
        ),
    ),
    (
        "classification",
        _rule(
            r"\bsentiment\b",
            r"\bpositive,? (?:or|negative)",
            r"\bodd one out\b",
            r"\bdoes(?:n't| not) belong\b",
            r"\b(?:classify|categori[sz]e|which category)\b",
            r"\bspam\b",
            r"\btone of\b",
            r"\bis (?:this|the following) (?:review|sentence|text|message|tweet)\b",
        ),
    ),
    (
        "date",
        _rule(
            rf"\b{_WEEKDAYS}\b",
            rf"\b{_MONTHS}\b\.? \d",
            rf"\d(?:st|nd|rd|th)? (?:of )?{_MONTHS}\b",
            r"\b\d{4}-\d{2}-\d{2}\b",
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b",
            r"\bwhat (?:day|date|year|month)\b",
            r"\bday of the (?:week|year)\b",
            r"\bleap years?\b",
            r"\b(?:days?|weeks?|months?|years?) (?:after|before|from (?:now|today)|ago|until|"
            r"since|later|earlier)\b",
            r"\b(?:tomorrow|yesterday|calendar)\b",
        ),
    ),
    (
        "unit_conversion",
        _rule(
            r"\bconvert(?:ed|ing|s)?\b",
            rf"{_NUMBER} ?{_UNITS}\b.{{0,20}}\b(?:in|to|into|as) {_UNITS}\b",
            rf"\bhow many {_UNITS}\b.{{0,30}}\b(?:in|per|make|equals?|is|are)\b.{{0,20}}"
            rf"{_UNITS}\b",
            rf"\b{_UNITS} (?:to|into) {_UNITS}\b",
        ),
    ),
    (
        # A yes/no or which-is question about an order comes before arithmetic, so that "Is
        # 2^10 larger than 1000?" asks for a comparison; "3 more than Tom's" stays arithmetic.
        "comparison",
        _rule(
            rf"^(?:is|are|was|were|which|which one|which number) \b.*\b{_COMPARATIVES}\b",
            r"^(?:is|are|was|were) .*\b(?:equal to|the same as)\b",
        ),
    ),
    (
        "arithmetic",
        _rule(
            r"\d ?(?:[-+*/×÷^%]|\bx\b) ?\(? ?\d",
            r"\d ?% of\b",
            r"\b(?:plus|minus|times|multiplied by|divided by|sum of|product of|difference "
            r"between|squared|cubed|square root|percent of|average of|remainder)\b",
            rf"\bwhat is {_NUMBER} (?:more|less) than {_NUMBER}",
            rf"{_NUMBER}.*\b(?:how many|how much|total|altogether|in all|left|remain(?:s|ing)?|"
            r"each|per|cost|change|earn|spend|spent)\b",
            rf"\b(?:how many|how much)\b.*{_NUMBER}.*{_NUMBER}",
            r"\b(?:calculate|compute)\b",
        ),
    ),
    (
        "logic_puzzle",
        _rule(
            r"\b(?:puzzle|riddle|syllogism)\b",
            r"\b(?:if )?(?:all|some|no) \w+ are\b",
            r"\btrue or false\b",
            r"\b(?:can we conclude|does it follow|must be true|must be false)\b",
            r"\bknights?\b.*\bknaves?\b",
            r"\b(?:liars?|truth-tellers?)\b",
            r"\bwho is the (?:tallest|shortest|oldest|youngest|fastest|slowest|heaviest|"
            r"lightest|richest|first|last)\b",
            r"\bsits? (?:next to|between|opposite)\b",
            r"\bif\b.+\bthen\b",
            r"\b(?:what comes next|next number|next in the (?:sequence|series))\b",
        ),
    ),
    (
        "comparison",
        _rule(
            rf"\b{_COMPARATIVES} than\b",
            rf"\bwhich is (?:the )?{_COMPARATIVES}\b",
            r"\b(?:equal to|the same as)\b",
        ),
    ),
    (
        "open_ended",
        _rule(
            r"^(?:why|explain|describe|discuss|write|compose|draft|suggest|imagine|design|"
            r"propose|summari[sz]e|tell me|give me|help me|brainstorm|create|plan)\b",
            r"^what (?:are|is) (?:some|the best|a good) ways?\b",
            r"^how (?:can|could|should|would|do|might|to) (?:i|we|you|one)?\b",
            r"\b(?:what do you think|pros and cons|advice|opinion|recommend)\b",
        ),
    ),
    (
        "factual",
        _rule(
            r"^(?:who|what|where|when|which|whose|whom|how (?:many|much|far|long|old|big|tall|"
            r"high|deep)|name|define|list|is|are|was|were|did|does|do|can|has|have)\b",
            r"\b(?:capital|author|inventor|population|definition|meaning) of\b",
        ),
    ),
)
_BIAS = 1.0
# The rules hold `.*` between two parts, so their cost grows with the square of the text.
MAX_CLASSIFIED_CHARS = 1000


def family(query: str) -> str:
    """Return the query's task family, one of `FAMILIES`; "open_ended" when no rule claims it.

    >>> family("How many r's are in 'strawberry'?")
    'letters'
    >>> family("Which is heavier, a kilo of feathers or a kilo of iron? A) feathers B) iron")
    'multiple_choice'
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    # One line, one space between words: the rules then need no newline or spacing variants.
    text = " ".join(query.split())[:MAX_CLASSIFIED_CHARS]  # a long paste: classified by its start
    for name, pattern in _RULES:
        if pattern.search(text):
            return name
    return "open_ended"


def feature_names() -> list[str]:
    """The names of `query_features`' entries, in order: one per family, then "bias"."""
    return [f"family={name}" for name in FAMILIES] + ["bias"]


def query_features(query: str) -> npt.NDArray[np.float64]:
    """Return the query's context vector: the one-hot family followed by a constant 1.

    >>> query_features("What is the capital of France?").tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0]
    """
    vector = np.zeros(len(FAMILIES) + 1, dtype=np.float64)
    vector[FAMILIES.index(family(query))] = 1.0
    vector[-1] = _BIAS
    return vector


def describe_context(context: Sequence[float]) -> str:
    """The family a `query_features` vector stands for (for reports such as `Engine.snapshot`).

    >>> describe_context(query_features("What is 2 + 2?"))
    'arithmetic'
    """
    values = list(context)[: len(FAMILIES)]
    hot = [index for index, value in enumerate(values) if value == 1.0]
    return FAMILIES[hot[0]] if len(hot) == 1 else "context " + ",".join(f"{v:g}" for v in context)
