"""Reasoning-path templates: the data files and their validating loader.

>>> from templates import load_templates
>>> templates = load_templates()
>>> len(templates) >= 10 and all(t.prompt for t in templates)
True
"""

from templates.errors import TemplateError
from templates.loader import load_templates, parse_template, template_to_toml
from templates.model import PLACEHOLDERS, Template, template_key

__all__ = [
    "PLACEHOLDERS",
    "Template",
    "TemplateError",
    "load_templates",
    "parse_template",
    "template_key",
    "template_to_toml",
]
