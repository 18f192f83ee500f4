"""The versioned JSON API (`/api/v1`): decisions, outcomes, arms, templates, health.

Request bodies are the ones in `ui.service.schemas`, responses the engine's own pydantic models,
so the OpenAPI schema is the library's types. Endpoints that wait on the model are plain `def`s:
FastAPI runs them in its thread pool, off the event loop, and the engine is safe to share between
threads.
"""

from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from typing import Annotated

from fastapi import APIRouter, FastAPI, Path, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from engine import ArmStats, Decision, Engine, OutcomeResult, PathDefinition
from engine.errors import (
    BudgetExceededError,
    InvalidKindError,
    OutcomeConflictError,
    OutcomeLimitError,
    PolicyError,
    StoreUnavailableError,
    TemplateError,
    ThinkPathError,
    UnknownArmError,
    UnknownDecisionError,
    UnknownKindError,
    UnknownModelError,
)
from templates import Template
from ui.service.auth import Access
from ui.service.guard_stack import Guards, GuardStack
from ui.service.guards import DEFAULT_ALLOWED_HOSTS
from ui.service.limits import MAX_BODY_BYTES
from ui.service.openai_compat import OPENAI_PREFIX, create_openai_app
from ui.service.schemas import (
    DecideRequest,
    Health,
    KindNameRequest,
    KindRow,
    OutcomeRequest,
    RetireRequest,
)
from ui.service.strict_json import validation_error

API_PREFIX = "/api/v1"
# Decision and arm ids alike: short, and nothing that needs escaping in a path.
DecisionId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
KindId = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]
# A part of the service that health asks after: its name, and a check that says what is wrong
# with it (None when nothing is). The playground's queue is one (`ui.service.gradio_queue`).
HealthChecks = Mapping[str, Callable[[], str | None]]


# Each engine error becomes the 4xx (or 503) that says what the caller can do about it.
_STATUS_OF_ERROR: Sequence[tuple[type[ThinkPathError], int]] = (
    (UnknownDecisionError, status.HTTP_404_NOT_FOUND),
    (UnknownArmError, status.HTTP_404_NOT_FOUND),
    (UnknownKindError, status.HTTP_404_NOT_FOUND),
    (InvalidKindError, status.HTTP_422_UNPROCESSABLE_CONTENT),  # a task name that is no slug
    (UnknownModelError, status.HTTP_422_UNPROCESSABLE_CONTENT),  # a model the catalogue lacks
    (OutcomeConflictError, status.HTTP_409_CONFLICT),
    # the decision's history is full: a conflict with its state, nothing recorded
    (OutcomeLimitError, status.HTTP_409_CONFLICT),
    (PolicyError, status.HTTP_422_UNPROCESSABLE_CONTENT),
    (TemplateError, status.HTTP_422_UNPROCESSABLE_CONTENT),
    (BudgetExceededError, status.HTTP_429_TOO_MANY_REQUESTS),
    (StoreUnavailableError, status.HTTP_503_SERVICE_UNAVAILABLE),
)


async def _engine_error(_: Request, error: Exception) -> JSONResponse:
    for kind, code in _STATUS_OF_ERROR:
        if isinstance(error, kind):
            return JSONResponse(status_code=code, content={"detail": str(error)})
    return JSONResponse(status_code=status.HTTP_400_BAD_REQUEST, content={"detail": str(error)})


def build_router(engine: Engine, checks: HealthChecks | None = None) -> APIRouter:
    router = APIRouter(prefix=API_PREFIX)

    @router.post("/decisions", status_code=status.HTTP_201_CREATED, tags=["decisions"])
    def create_decision(request: DecideRequest) -> Decision:
        """Decide on a query: seed, path, tool, answer, and (with an expected answer) its score."""
        checker = request.checker()
        # The expected answer is the client's claim, scored as its source's (default "user").
        checked_by = (request.source or "user") if checker is not None else None
        return engine.decide(
            request.query,
            checker=checker,
            checked_by=checked_by,
            task=request.task,
            options=request.options,
            model=request.model,
        )

    @router.get("/decisions/{decision_id}", tags=["decisions"])
    def read_decision(decision_id: DecisionId) -> Decision:
        """A decision with its trace, candidates, choices, cost, and every outcome so far."""
        return engine.get_decision(decision_id)

    @router.post(
        "/decisions/{decision_id}/outcomes",
        status_code=status.HTTP_201_CREATED,
        tags=["decisions"],
    )
    def record_outcome(decision_id: DecisionId, outcome: OutcomeRequest) -> OutcomeResult:
        """Record a reward; the same (decision, source) twice is applied once (`applied: false`),
        `"replace": true` corrects it. The engine's own sources (checker, tool, referee) are 422;
        a new source past the decision's bound, or a correction past the source's, is 409."""
        return engine.record_outcome(
            decision_id, outcome.source, outcome.reward, outcome.weight, replace=outcome.replace
        )

    @router.get("/arms", tags=["learning"])
    def list_arms(
        query: Annotated[str | None, Query(max_length=8000)] = None,
        kind: Annotated[str | None, Query(max_length=128)] = None,
    ) -> list[ArmStats]:
        """Every arm's statistics; with `query` (the kind it would join) or `kind` (a kind's
        id), also cold/confident and P(best) for that kind of query: the chance that the arm
        has the highest mean reward of its role on that kind, under the engine's policy for it
        now (the same number as the playground's Arms tab, `snapshot()` and MLflow)."""
        return engine.arms(query, kind=kind)

    @router.get("/kinds", tags=["learning"])
    def list_kinds() -> list[KindRow]:
        """The kinds of query, oldest first: id, name, origin, decisions and first question."""
        return [KindRow.model_validate(row) for row in engine.kinds()]

    @router.post("/kinds/{kind_id}/name", tags=["learning"])
    def name_kind(kind_id: KindId, request: KindNameRequest) -> KindRow:
        """Name a kind of query (a slug): it keeps what it learned, and the name then works as
        a task name. 404 for an unknown kind, 422 for a bad or taken name."""
        return KindRow.model_validate(engine.rename_kind(kind_id, request.name))

    _template_routes(router, engine)

    @router.get("/health", tags=["service"])
    def health(response: Response) -> Health:
        """`ok` (200), or `degraded` (503) naming what is wrong, so a load balancer looks away."""
        found = {part: check() for part, check in (checks or {}).items()}
        problems = {part: problem for part, problem in found.items() if problem is not None}
        if problems:
            response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
        return Health(
            status="degraded" if problems else "ok",
            version=metadata.version("thinkpath"),
            namespace=engine.config.namespace,
            arms=len(engine.arms()),
            problems=problems,
        )

    return router


def _template_routes(router: APIRouter, engine: Engine) -> None:
    @router.get("/templates", tags=["templates"])
    def list_templates() -> list[PathDefinition]:
        """Every reasoning-path template, retired ones included (`/arms` shows which are)."""
        return engine.templates()

    @router.post("/templates", status_code=status.HTTP_201_CREATED, tags=["templates"])
    def add_template(template: Template) -> PathDefinition:
        """Add a template: it becomes a new path arm, saved in the store."""
        return engine.add_template(template)

    @router.post("/templates/{arm_id}/retire", tags=["templates"])
    def retire_template(arm_id: DecisionId, request: RetireRequest) -> ArmStats:
        """Stop choosing a template, for good; its statistics and history stay (see `/arms`)."""
        return engine.retire_template(arm_id, request.reason)


def create_api(
    engine: Engine,
    *,
    token: str | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    cors_origins: Sequence[str] = (),
    allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS,
    access: Access | None = None,
    guarded: bool = True,
    health_checks: HealthChecks | None = None,
) -> FastAPI:
    """The FastAPI app: the API under `/api/v1`, every route behind the guards.

    The guards (`ui.service.guard_stack`) are ASGI middleware over the whole app, so a route or
    mount added later (the playground, another API) is covered without doing anything. `access`
    (built from `token` when not given) is shared with whatever else must check credentials.
    `guarded=False` leaves them off for a caller that puts the same stack outside this app
    (`thinkpath serve`, whose guards already answer while the app is being built).
    `health_checks` are the parts health asks after besides the engine (the playground's queue).
    """
    access = access if access is not None else Access(token)
    app = FastAPI(
        title="ThinkPath",
        version=metadata.version("thinkpath"),
        summary="Learns which reasoning path and tools work for which task.",
    )
    app.include_router(build_router(engine, health_checks))
    # The OpenAI-compatible endpoint beside /api/v1: a sub-application, for its own error shape.
    app.mount(OPENAI_PREFIX, create_openai_app(engine))
    app.add_exception_handler(ThinkPathError, _engine_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.state.access = access
    if guarded:
        guards = Guards(access, max_body_bytes, tuple(cors_origins), tuple(allowed_hosts))
        app.add_middleware(GuardStack, guards=guards)
    return app
