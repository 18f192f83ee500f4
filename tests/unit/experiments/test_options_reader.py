"""The option reader's measurement: how it compares readings with gold, on hand-written items."""

import json
from pathlib import Path

import pytest

from engine.domain.options import Options
from experiments.options_reader import Item, load, main, measure, normalised, same_options


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hers was lost.", "hers was lost"),
        ("  Two   words ", "two words"),
        ("Ends in two..", "ends in two."),  # one final "." only
        ("U.S.", "u.s"),
        ("plain", "plain"),
    ],
)
def test_texts_compare_without_spacing_case_or_one_final_point(text: str, expected: str) -> None:
    assert normalised(text) == expected


def test_a_reading_is_right_only_with_the_gold_form_and_texts_in_order() -> None:
    lettered = Item("Q? (A) Oslo. (B) Bergen", ("oslo", "Bergen."), "letter")
    assert same_options(Options(("Oslo.", "Bergen"), "letter", ("A", "B")), lettered)
    assert not same_options(Options(("Bergen", "Oslo"), "letter", ("A", "B")), lettered)
    assert not same_options(Options(("Oslo", "Bergen"), "word"), lettered)
    assert not same_options(Options(("the Oslo", "Bergen"), "letter", ("A", "B")), lettered)
    refused = Item("What is the capital of Norway?", None, None)
    assert not same_options(Options(("Yes", "No"), "word"), refused)


def test_the_tally_counts_reads_rights_wrongs_and_misses() -> None:
    items = [
        Item("Is a whale a fish?", ("Yes", "No"), "word"),  # right
        Item("Which is longer, 3 m or 300 cm?", ("3 m", "300 cm"), "word"),  # right
        Item("Is a whale a fish?", ("True", "False"), "word"),  # read, wrong
        Item("Explain how tides work.", ("high", "low"), "word"),  # missed
        Item("Explain how tides work.", None, None),  # refused, as it should be
    ]
    tally = measure(items)
    assert (tally.items, tally.with_options, tally.read, tally.right) == (5, 4, 3, 2)
    assert tally.precision == pytest.approx(2 / 3)
    assert [wrong["gold"] for wrong in tally.wrong] == [("True", "False")]
    assert [missed["question"] for missed in tally.missed] == ["Explain how tides work."]


def test_the_command_reads_a_set_and_writes_its_figures(tmp_path: Path) -> None:
    entries = [
        {"question": "Is ice cold?", "options": ["Yes", "No"], "form": "word", "note": "yes/no"},
        {"question": "Why is ice cold?", "options": None, "form": None, "note": "open"},
    ]
    given = tmp_path / "set.json"
    given.write_text(json.dumps(entries))
    assert load(given)[0] == Item("Is ice cold?", ("Yes", "No"), "word")
    out = tmp_path / "figures.json"
    main([str(given), "--json", str(out)])
    figures = json.loads(out.read_text())
    assert (figures["read"], figures["right"], figures["precision"]) == (1, 1, 1.0)
