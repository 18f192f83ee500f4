"""The options a question offers and the one an option procedure chose, in words.

One wording for the progress log, the playground's card and `thinkpath ask`, read from the
options step's and the answer step's outputs (`engine.stages.option_procedures`).
"""

from typing import Any

from ui.markup import clip, quoted

__all__ = ["option_choice_words", "options_words"]


def options_words(outputs: dict[str, Any]) -> str:
    """The options a question offers, in words, from the options step's (or an option
    answer's) outputs: where they came from, then each, lettered where the question letters
    them.

    >>> options_words({"options": ["Mars", "Jupiter"], "letters": ["A", "B"],
    ...                "source": "question", "understood": "2 lettered options"})
    '2 options read from the question (2 lettered options): (A) "Mars", (B) "Jupiter"'
    >>> options_words({"options": ["a bird", "a fish"], "letters": [], "source": "question",
    ...                "reader": "model", "model": "local/qwen2.5-coder-1.5b"})
    '2 options read from the question by the model local/qwen2.5-coder-1.5b: "a bird", "a fish"'
    """
    texts = [str(text) for text in outputs.get("options", [])]
    letters = [str(letter) for letter in outputs.get("letters", [])]
    listed = ", ".join(
        f"({letters[index]}) {quoted(clip(text, 60))}" if letters else quoted(clip(text, 60))
        for index, text in enumerate(texts)
    )
    if outputs.get("source") == "client":
        return f"{len(texts)} options given by the client: {listed}"
    understood = outputs.get("understood")
    how = f" ({understood})" if understood else ""
    # The rule reader refused and the model read them (`engine.stages.option_reading`): say so.
    by = f" by the model {outputs.get('model')}" if outputs.get("reader") == "model" else ""
    return f"{len(texts)} options read from the question{by}{how}: {listed}"


def option_choice_words(outputs: dict[str, Any]) -> str | None:
    """Which option an option procedure chose and how, from the answer step's outputs; None
    for an answer that is not a choice among options.

    >>> print(option_choice_words({"procedure": "option_likelihood", "chosen": "B",
    ...     "chosen_text": "Jupiter", "letters": ["A", "B"], "share": 0.62}))
    chose (B) "Jupiter" by the model's likelihood of each option (share 0.62 of the options)
    >>> print(option_choice_words({"procedure": "option_likelihood", "chosen": "No",
    ...     "chosen_text": "No", "share": 0.8, "normalisation": "calibrated",
    ...     "uncalibrated_choice": "Yes"}))
    chose "No" by the model's likelihood of each option over its likelihood with no question \
(share 0.80 of the options; "Yes" before that calibration)
    >>> option_choice_words({"procedure": "single"}) is None
    True
    """
    if "chosen_text" not in outputs:
        return None
    text = quoted(clip(str(outputs["chosen_text"]), 60))
    chosen = f"({outputs['chosen']}) {text}" if outputs.get("letters") else text
    how = {
        "constrained_choice": "in one call held to the options",
        "reason_choose": "after a short reasoning call, in a call held to the options",
        "option_likelihood": "by the model's likelihood of each option",
    }.get(str(outputs.get("procedure")), "among the options")
    if outputs.get("normalisation") == "calibrated":
        how += " over its likelihood with no question"
    notes = []
    if (share := outputs.get("share")) is not None:
        notes.append(f"share {float(share):.2f} of the options")
    before = outputs.get("uncalibrated_choice")
    if before is not None and before != outputs["chosen_text"]:
        notes.append(f"{quoted(clip(str(before), 60))} before that calibration")
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"chose {chosen} {how}{tail}"
