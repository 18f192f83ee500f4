"""The first two steps of a decision: what kind of query it is, and what options it offers.

Both only read the query (and the kind book's match): no model call, no learning. Each yields
its trace step, with why, for the card and the progress log.
"""

from engine.domain.kinds import KindMatch
from engine.domain.models import QueryKind
from engine.domain.options import NoOptions, Options, understand_options
from engine.domain.records import NO_COST, Cost
from engine.domain.trace import Steps, report, start

__all__ = ["kind_step", "options_step"]


def options_step(
    query: str,
    given: Options | NoOptions | None,
    *,
    started: float | None = None,
    second: dict[str, object] | None = None,
    cost: Cost = NO_COST,
) -> Steps[Options | None]:
    """The options the question offers (`understand_options`), as given or read, else None
    with why: an option procedure answers only a question that offers options.

    `second` is the record of a second reader that read where the rule reader refused (the
    model's reading, `engine.stages.option_reading`), and `cost` what its call spent: the step
    says which reader read the options, and the model's own reply."""
    started = start() if started is None else started
    found = given if given is not None else understand_options(query)
    reader = {"reader": "rules"} if second is None else second
    if isinstance(found, NoOptions):
        yield report(
            "options", "skipped", started, cost=cost, outputs={"why": found.reason, **reader}
        )
        return None
    outputs = {
        "options": list(found.texts),
        "letters": list(found.letters),
        "form": found.form,
        # options a client gave have no stem: their question is the query itself
        "source": "question" if found.stem else "client",
        "understood": found.understood,
        **(reader if found.stem else {}),
    }
    yield report("options", "done", started, cost=cost, outputs=outputs)
    return found


def kind_step(match: KindMatch, started: float) -> Steps[QueryKind]:
    """The query's kind as the decision and its trace say it, with why it is that kind."""
    kind = QueryKind(
        id=match.kind.kind_id,
        label=match.kind.label,
        origin=match.kind.origin,
        new=match.new,
        similarity=match.similarity,
        why=match.why,
        example=match.kind.example,
    )
    yield report(
        "kind",
        "done",
        started,
        outputs=kind.model_dump(mode="json", exclude={"size"}),
    )
    return kind
