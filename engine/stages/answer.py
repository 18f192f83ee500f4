"""Stage 8, the answer: one free-text call following the chosen path's instructions.

The answer is deliberately not schema-constrained: constraining it erased the strategies' effect
on the small embedded model (docs/OFFLINE measurements), so it is left free and checked later.
"""

from engine.core.models import ToolRun
from engine.core.ports import LLM
from engine.core.records import ChatMessage, LLMRequest, PathDefinition
from engine.stages.prompting import DATA_RULE, fence

ANSWER_SYSTEM = "You are a careful problem solver. Follow the strategy you are given. " + DATA_RULE


def answer_messages(
    path: PathDefinition, query: str, brief: str | None, tool_run: ToolRun | None
) -> tuple[ChatMessage, ...]:
    """Render the path's prompt; the seed and the tool output go in fenced as data."""
    seed_block = fence("seed", brief) if brief else "(no background brief)"
    prompt = path.prompt
    # Only these two placeholders are filled (by replace, not str.format), so braces in a
    # template or in generated detour text can never reach into the program.
    body = prompt.replace("{query}", query).replace("{seed}", seed_block)
    if "{query}" not in prompt:
        body = f"{body}\n\nQuestion: {query}"
    if "{seed}" not in prompt:
        body = f"{body}\n\nBackground:\n{seed_block}"
    if tool_run is not None:
        shown = tool_run.output if tool_run.ok else f"the tool failed: {tool_run.error}"
        body = f"{body}\n\nTool {tool_run.tool}({tool_run.argument!r}) said:\n" + fence(
            "tool_output", shown
        )
    return (ChatMessage("system", ANSWER_SYSTEM), ChatMessage("user", body))


def write_answer(
    llm: LLM,
    path: PathDefinition,
    query: str,
    brief: str | None,
    tool_run: ToolRun | None,
    *,
    max_tokens: int,
    timeout_s: float,
) -> str:
    request = LLMRequest(
        messages=answer_messages(path, query, brief, tool_run),
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        purpose="answer",
    )
    return llm.complete(request).text.strip()
