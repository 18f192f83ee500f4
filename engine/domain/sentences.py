"""How a question's sentences open: its words, and the closed classes that start a question.

Shared by the option readers (`engine.domain.options`, `engine.domain.option_blocks`): a yes/no
question opens with an auxiliary verb ("Is", "Does"), a wh-question with a wh-word. These are
closed grammatical classes, not cues to an answer.
"""

import re

__all__ = ["AUXILIARIES", "WH_WORDS", "first_word", "words_of"]


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


WH_WORDS = _word_set("what which who whom whose where when why how")
# With the stems of their negative contractions ("Isn't 51 prime?" is "isn", "t"), which open
# yes/no questions as surely.
AUXILIARIES = _word_set(
    "am is are was were do does did have has had can could will would shall should may might must "
    "isn aren wasn weren don doesn didn haven hasn hadn couldn wouldn shouldn mustn"
)


def words_of(text: str) -> list[str]:
    """The words of `text`, folded to lower case; "What's" is "what", "s"."""
    return re.findall(r"[a-z0-9]+", text.casefold())


def first_word(text: str) -> str:
    """The first word of `text`, folded; "" when it has none."""
    words = words_of(text)
    return words[0] if words else ""
