"""The "no tool" choice as a tool, so the registry can describe and run it like any other."""

from dataclasses import dataclass

from engine.domain.records import NO_TOOL

__all__ = ["NoTool"]


@dataclass(frozen=True)
class NoTool:
    """Answer without a tool: an arm of its own, so the tool policy can learn that tools don't help.

    >>> NoTool().run("anything")
    ''
    """

    name: str = NO_TOOL
    description: str = "Use no tool; answer from the question and the notes alone."

    def run(self, argument: str) -> str:  # noqa: ARG002 - the port's signature
        return ""
