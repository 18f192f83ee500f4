"""Requests put as questions are not yes/no questions (`engine.domain.option_requests`).

The class found on tests/data/options_heldout_3.json: a modal put for the asker ("Can I get
…?") or as a possibility ("Would it be possible to explain …?") asks for something to be done
or given. Each case is written here, not copied from that set.
"""

import pytest

from engine.domain.options import NoOptions, read_options, understand_options


@pytest.mark.parametrize(
    "question",
    [
        "Can I get the recipe for that lentil soup?",
        "Could we please have a table by the window?",
        "May I borrow your notes from Tuesday?",
        "Might I ask what the deadline is?",
        "Could I get you to look at my CV tonight?",
        "Would I be able to ask a quick question about taxes?",
        "Could I trouble you for a lift to the station?",
    ],
)
def test_a_modal_for_the_asker_with_a_verb_of_receiving_is_a_request(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions), understand_options(question)


@pytest.mark.parametrize(
    "question",
    [
        "Is it possible to summarise this article in three lines?",
        "Would it be OK to go over the proof once more?",
        "Is there any chance of explaining the offside rule simply?",
        "Would it be possible for you to review my essay?",
        "Is there a way to send me the invoice again?",
        "Will it be possible to get a copy of the minutes?",
    ],
)
def test_a_possibility_of_a_service_is_a_request(question: str) -> None:
    assert isinstance(understand_options(question), NoOptions), understand_options(question)


# The asker acting asks whether the act is possible or allowed: "Can I divide by zero?" is
# answered "No", as "Can penguins fly?" is. So is a possibility without a service for the asker.
@pytest.mark.parametrize(
    "question",
    [
        "Can I divide by zero?",
        "Can we swim in the lake in winter?",
        "May I park here overnight?",
        "Could I give blood after a flu jab?",
        "Would it be possible to walk from Paris to Rome in a month?",
        "Is there any chance of snow in Madrid in May?",
        "Is it OK for me to eat raw cookie dough?",
        "Could an octopus open a jar?",
        "Will the moon be full next Friday?",
    ],
)
def test_questions_about_what_is_possible_stay_yes_no(question: str) -> None:
    options = read_options(question)
    assert options is not None, understand_options(question)
    assert options.texts == ("Yes", "No")
