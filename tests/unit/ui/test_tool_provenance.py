"""The CLI and the /v1 extension say what a tool did, in the tool's own words."""

from datetime import UTC, datetime

from engine.domain.models import Choice, Decision, Seed, ToolRun, TraceStep
from engine.domain.records import Cost
from ui.ask_commands import summary
from ui.service.schemas import extension

PROVENANCE = "parsed the whole question and computed 30 - 12 = 18"


def _decision(tool_run: ToolRun | None) -> Decision:
    trace = []
    if tool_run is not None:  # the tool step as the pipeline writes it
        outputs = {"ok": tool_run.ok, "output": tool_run.output}
        if tool_run.provenance:
            outputs |= {"provenance": tool_run.provenance, "fully_parsed": tool_run.fully_parsed}
        trace.append(TraceStep(stage="tool", reason="done", outputs=outputs))
    return Decision(
        id="d1",
        namespace="default",
        created_at=datetime.now(UTC),
        query="A bus has 30 seats and 12 are taken. How many are free?",
        context=[],
        seed=Seed(),
        candidates=[],
        trace=trace,
        cost=Cost(),
        path=Choice(role="path", arm_id="direct_answer", propensity=1.0, reason="forced"),
        tool=Choice(role="tool", arm_id="calculator", propensity=0.5, reason="cold_start"),
        tool_run=tool_run,
    )


def test_a_fully_parsed_result_is_shown_with_its_provenance() -> None:
    run = ToolRun(
        tool="calculator",
        argument="q",
        ok=True,
        output="30 - 12 = 18",
        value="18",
        provenance=PROVENANCE,
        fully_parsed=True,
    )
    decision = _decision(run)
    lines = summary(decision).splitlines()
    assert f"          how: {PROVENANCE}" in lines
    assert "          it read the whole question, so its result answers it" in lines
    assert extension(decision)["tool_provenance"] == {
        "tool": "calculator",
        "provenance": PROVENANCE,
        "fully_parsed": True,
    }


def test_a_refusal_or_no_tool_says_nothing_about_provenance() -> None:
    refused = ToolRun(tool="calculator", argument="q", ok=False, error="ToolRefusalError: ...")
    for decision in (_decision(refused), _decision(None)):
        assert not [line for line in summary(decision).splitlines() if "how:" in line]
        assert extension(decision)["tool_provenance"] is None
