"""The shipped templates: enough of them, genuinely different, and written for small models."""

import itertools
import re
from difflib import SequenceMatcher
from importlib import resources
from typing import get_args

from engine.domain.procedures import PROCEDURES
from templates import load_templates, parse_template
from templates.model import Procedure


def test_at_least_ten_builtin_templates_with_unique_ids() -> None:
    templates = load_templates()
    assert len(templates) >= 10
    assert len({t.id for t in templates}) == len(templates)


def test_each_file_is_named_after_its_id() -> None:
    folder = resources.files("templates").joinpath("builtin")
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            template = parse_template(entry.read_text(encoding="utf-8"), entry.name)
            assert entry.name == f"{template.id}.toml"


def test_every_prompt_places_the_query_and_ends_with_the_answer_format() -> None:
    for template in load_templates():
        assert "query" in template.placeholders, template.id
        if template.procedure == "bare":  # the question alone, by definition: checked below
            continue
        last_line = template.prompt.splitlines()[-1]
        assert last_line == "End with a line 'Answer: <answer>'.", template.id


def test_strategies_differ_in_wording_not_just_in_name() -> None:
    # Strip the shared frame (question line and final instruction) and compare what is left.
    def body(prompt: str) -> str:
        lines = prompt.splitlines()[:-1]
        return "\n".join(line for line in lines if not line.startswith("Question:"))

    templates = load_templates()
    for first, second in itertools.combinations(templates, 2):
        similarity = SequenceMatcher(None, body(first.prompt), body(second.prompt)).ratio()
        assert similarity < 0.6, (first.id, second.id, similarity)


def test_prompts_are_short_enough_for_a_small_model() -> None:
    for template in load_templates():
        words = len(re.findall(r"\S+", template.prompt))
        assert words <= 80, (template.id, words)


def test_the_procedures_each_have_a_builtin_arm_and_bare_is_the_question_alone() -> None:
    by_procedure = {t.procedure: t for t in load_templates()}
    assert set(by_procedure) == {"single", "bare", "self_consistency", "program", "plan_solve"}
    assert by_procedure["bare"].prompt == "{query}"


def test_the_template_procedures_are_the_ones_the_engine_runs() -> None:
    # templates/ may not import the engine, so the list is written twice and held equal here.
    assert get_args(Procedure) == PROCEDURES
