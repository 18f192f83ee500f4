"""The tool port: what a tool is, what running one gives back, and the "no tool" choice."""

from dataclasses import dataclass
from typing import Protocol

__all__ = ["NO_TOOL", "NoTool", "Tool", "ToolResult"]

NO_TOOL = "none"


class Tool(Protocol):
    """A tool the answer stage may call: a name, a description for the model, and `run`.

    `run` takes one string argument and returns text for the answer prompt. It raises on failure
    (any exception); the registry turns that into a failed `ToolResult`. A tool must bound its own
    work (input size, backend timeouts), because a thread that overruns its deadline cannot be
    killed: see `engine.tools.registry`.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    def run(self, argument: str) -> str: ...


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call: output on success, the reason on failure, and its duration."""

    ok: bool
    output: str
    error: str | None
    seconds: float


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
