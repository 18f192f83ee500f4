"""Errors of the template loader (part of the tree drawn in `engine.errors`)."""

from learning.errors import ThinkPathError


class TemplateError(ThinkPathError):
    """A reasoning-path template that does not validate; the message names file and field."""
