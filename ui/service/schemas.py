"""Every wire schema of the service, in one place: the JSON API's bodies, and the OpenAI format.

- `/api/v1` (routes in `ui.service.api`): `DecideRequest`, `OutcomeRequest`, `RetireRequest` and
  `Health`; decisions, outcomes and arm statistics go out as the engine's own models.
- `/v1`, OpenAI's chat completions (routes in `ui.service.openai_compat`): requests are
  validated here and turned into the engine's input (a query and `ChatOptions`); decisions are
  turned into OpenAI's response, chunk and error bodies.

Nothing here runs a model. OpenAI parameters are accepted only where ThinkPath honours them.
Anything else a client sets to a non-neutral value (`n > 1`, `tools`, `logprobs`, ...) is refused
with a 400 naming it, because a silently ignored parameter would let a client believe it got what
it asked for.
"""

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from engine import ChatMessage, ChatOptions, Decision, ExpectedChecker, checker_for
from templates.text import check_visible
from ui.service.choice_format import ChoiceFormat, choice_format

BASE_MODEL = "thinkpath"
FORCED_PREFIX = f"{BASE_MODEL}:"
# Earlier turns kept for the answer prompt, newest first, within this many characters: the
# embedded model's context is 4096 tokens by default, and the path's prompt and the seed need
# room too.
MAX_HISTORY_CHARS = 6000

# Parameters a client may send with their neutral value: what OpenAI does without them.
_NEUTRAL: Mapping[str, tuple[object, ...]] = {
    "n": (1,),
    "logprobs": (False,),
    "top_p": (1, 1.0),
    "presence_penalty": (0, 0.0),
    "frequency_penalty": (0, 0.0),
    "tool_choice": ("none",),
    "response_format": ({"type": "text"},),
    "parallel_tool_calls": (False, True),  # meaningless without tools, which are refused
    "store": (False,),
}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DecideRequest(_Body):
    """A query, and optionally its known answer so that an exact checker scores the decision.

    The expected answer is the client's claim: its check is recorded as the score of `source`
    ("user" by default, or "user:<name>"), trusted as a user's, which that source corrects by
    posting an outcome with `"replace": true` (`engine.domain.evidence`).
    """

    query: str = Field(min_length=1, max_length=8000)
    expected_answer: str | None = Field(default=None, max_length=500)
    answer_kind: Literal["numeric", "exact", "choice", "date"] | None = None
    source: str | None = Field(default=None, min_length=1, max_length=64)
    # The kind of query, named by the client (a slug, e.g. "ticket-triage"; the engine checks
    # it); without one the engine finds the kind from the query.
    task: str | None = Field(default=None, min_length=1, max_length=64)
    # A model of the engine's catalogue to answer with (`GET /api/v1/models`); without one the
    # engine chooses per kind of query.
    model: str | None = Field(default=None, min_length=1, max_length=200)
    # The answers the question allows (2 to 26 distinct strings): the answer is then one of
    # them (`Engine.decide(options=...)`, which checks them and names what is wrong).
    options: (
        Annotated[
            list[Annotated[str, Field(min_length=1, max_length=200)]],
            Field(min_length=2, max_length=26),
        ]
        | None
    ) = None

    @model_validator(mode="after")
    def _both_or_neither(self) -> "DecideRequest":
        if (self.expected_answer is None) != (self.answer_kind is None):
            raise ValueError("give expected_answer and answer_kind together, or neither")
        if self.source is not None and self.expected_answer is None:
            raise ValueError("source names who gave expected_answer: give expected_answer too")
        if self.answer_kind is not None:  # fail now, not after the model has answered
            try:
                self.checker()
            except ValueError as error:
                raise ValueError(f"expected_answer does not fit answer_kind: {error}") from None
        return self

    def checker(self) -> ExpectedChecker | None:
        """The engine's checker for the expected answer (`engine.checker_for`, the one builder)."""
        if self.expected_answer is None:
            return None
        return checker_for(self.expected_answer, self.answer_kind)


class KindRow(_Body):
    """A kind of query as the service lists it (`Engine.kinds`)."""

    kind: str
    name: str | None
    aliases: list[str] = []  # former names, which still refer to this kind
    origin: Literal["task", "discovered"]
    decisions: int
    example: str
    faded: bool = False  # it stayed tiny and gave its slot to a newer kind: it takes no queries


class KindNameRequest(_Body):
    """A name for a kind of query: a slug, e.g. "ticket-triage" (the engine checks it)."""

    name: str = Field(min_length=1, max_length=64)


class OutcomeRequest(_Body):
    """A reward for a decision from one source; the weight defaults to the source's.

    `source` is "user" or "user:<name>" (the engine normalises case and spacing, and refuses its
    own sources with a 422: `engine.domain.evidence`). `replace: true` corrects that source's
    earlier score instead of conflicting with it.
    """

    source: str = Field(default="user", min_length=1, max_length=64)
    replace: bool = Field(default=False, strict=True)
    # strict: a JSON number only; "0.5" and true are refused rather than read as numbers.
    reward: float = Field(ge=0.0, le=1.0, allow_inf_nan=False, strict=True)
    weight: float | None = Field(default=None, gt=0.0, le=1.0, allow_inf_nan=False, strict=True)

    @field_validator("reward", "weight", mode="before")
    @classmethod
    def _json_number(cls, value: object, info: ValidationInfo) -> object:
        # bool is an int to Python; say plainly what was sent instead of pydantic's type error.
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            sent = {bool: "true/false", str: "a string"}.get(type(value), type(value).__name__)
            raise ValueError(f"{info.field_name} must be a JSON number in [0, 1], not {sent}")
        return value


class RetireRequest(_Body):
    """Why a template is retired: kept with its record, shown with its statistics."""

    reason: str = Field(min_length=1, max_length=200)

    @field_validator("reason")
    @classmethod
    def _visible(cls, value: str) -> str:
        return check_visible(value)  # no zero-width, tag or bidi characters (templates.text)


class Health(BaseModel):
    """`ok` (200) when every part serves; `degraded` (503) names each part that does not."""

    status: Literal["ok", "degraded"]
    version: str
    namespace: str
    arms: int
    # The part (e.g. "playground") and what is wrong with it; empty when all is well.
    problems: dict[str, str] = Field(default_factory=dict)


# -- OpenAI chat completions -------------------------------------------------------------------


class OpenAIError(Exception):
    """A request the endpoint refuses, with its status and OpenAI's error type and code."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.kind, self.code, self.param = (
            status,
            message,
            kind,
            code,
            param,
        )

    def body(self) -> dict[str, Any]:
        return error_body(self.message, kind=self.kind, code=self.code, param=self.param)


def error_body(
    message: str, *, kind: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error shape: `{"error": {"message", "type", "param", "code"}}`."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


# OpenAI's request fields are typed strictly: "stream": "yes" or "max_tokens": "5" is refused
# (422, OpenAI's error shape), never coerced into something the client may not have meant.


class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    type: str
    text: str | None = None


class MessageIn(BaseModel):
    """One chat message; `tool` and `function` messages need tools, which are not supported."""

    # e.g. `name`: a label that changes nothing here
    model_config = ConfigDict(extra="ignore", strict=True)

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    """`POST /v1/chat/completions`; unknown fields are kept to be checked, not dropped."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str = Field(min_length=1, max_length=200)
    messages: Annotated[list[MessageIn], Field(min_length=1, max_length=256)]
    stream: bool = False
    stream_options: StreamOptions | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=32768)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=32768)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, allow_inf_nan=False)
    user: str | None = Field(default=None, max_length=256)  # advisory in OpenAI's API too
    # OpenAI's limits: 16 pairs, keys of 64 characters, values of 512. Its "task" names the
    # kind of query (`Engine.decide(task=...)`); the other keys are the client's, kept nowhere.
    metadata: (
        Annotated[
            dict[Annotated[str, Field(max_length=64)], Annotated[str, Field(max_length=512)]],
            Field(max_length=16),
        ]
        | None
    ) = None

    def refuse_unsupported(self) -> None:
        """Raise a 400 for the first parameter set to something ThinkPath does not do."""
        for name, value in (self.model_extra or {}).items():
            if value is None or _is_neutral(value, _NEUTRAL.get(name, ())):
                continue
            if name == "response_format" and self.choice() is not None:
                continue
            raise OpenAIError(
                400,
                f"ThinkPath does not support the parameter {name!r} (value {value!r:.80}); "
                "see docs/openai.md for what is supported",
                code="unsupported_parameter",
                param=name,
            )

    def choice(self) -> ChoiceFormat | None:
        """The options a `response_format` enum gives (`ui.service.choice_format`), if any;
        a 400 naming what is supported for any other structured format, or for a stream."""
        try:
            found = choice_format((self.model_extra or {}).get("response_format"))
        except ValueError as error:
            raise OpenAIError(
                400, str(error), code="unsupported_parameter", param="response_format"
            ) from None
        if found is not None and self.stream:
            raise OpenAIError(
                400,
                "a response_format with an enum is answered whole: set stream to false",
                param="stream",
            )
        return found

    def task(self) -> str | None:
        """The task `metadata` names, if any (the engine checks that it is a slug)."""
        return (self.metadata or {}).get("task")

    def engine_input(self) -> tuple[str, ChatOptions]:
        """The query (the last message, a user's) and the rest as chat options for the answer."""
        *earlier, last = self.messages
        if last.role != "user":
            raise OpenAIError(
                400,
                f"the last message must be the user's question, not a {last.role!r} message",
                param="messages",
            )
        instructions: list[str] = []
        history: list[ChatMessage] = []
        for index, message in enumerate(earlier):
            text = _text_of(message, index)
            if message.role in ("system", "developer"):
                instructions.append(text)
            elif message.role == "user":
                history.append(ChatMessage("user", text))
            else:
                history.append(ChatMessage("assistant", text))
        options = ChatOptions(
            history=_recent(history),
            instructions="\n\n".join(instructions) or None,
            max_tokens=self.max_completion_tokens or self.max_tokens,
            temperature=self.temperature,
        )
        return _text_of(last, len(earlier)), options


def _is_neutral(value: object, neutral: Sequence[object]) -> bool:
    """`value` is one of the neutral values, of the same JSON type: `true` is not `1` here.

    >>> _is_neutral(1, (1,)), _is_neutral(True, (1,)), _is_neutral(1.0, (1, 1.0))
    (True, False, True)
    """
    return any(type(value) is type(item) and value == item for item in neutral)


def _text_of(message: MessageIn, index: int) -> str:
    where = f"messages[{index}]"
    if message.role in ("tool", "function"):
        raise OpenAIError(
            400,
            f"{where}: {message.role!r} messages need tools, which ThinkPath does not support",
            code="unsupported_parameter",
            param=where,
        )
    if isinstance(message.content, str):
        return message.content
    if message.content is None:
        if message.role == "assistant":
            return ""
        raise OpenAIError(400, f"{where} has no content", param=where)
    parts = []
    for part in message.content:
        if part.type != "text" or part.text is None:
            raise OpenAIError(
                400,
                f"{where}: content parts of type {part.type!r} are not supported (text only)",
                code="unsupported_content",
                param=where,
            )
        parts.append(part.text)
    return "\n".join(parts)


def _recent(history: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """The newest turns that fit in `MAX_HISTORY_CHARS`, in their order."""
    kept: list[ChatMessage] = []
    used = 0
    for message in reversed(history):
        used += len(message.content)
        if used > MAX_HISTORY_CHARS:
            break
        kept.append(message)
    return tuple(reversed(kept))


def route(
    model: str, template_ids: Sequence[str], model_ids: Sequence[str] = ()
) -> tuple[str | None, str | None]:
    """What a request's `model` asks for, as (forced path, pinned model): `thinkpath` lets the
    engine choose both, `thinkpath:<id>` forces a path, a catalogue model's id pins that model;
    404 for any other name."""
    if model == BASE_MODEL:
        return None, None
    if model.startswith(FORCED_PREFIX) and model[len(FORCED_PREFIX) :] in template_ids:
        return model[len(FORCED_PREFIX) :], None
    if model in model_ids:
        return None, model
    raise OpenAIError(
        404,
        f"the model {model!r} does not exist: use {BASE_MODEL!r}, {FORCED_PREFIX}<template id> "
        "or a model of the catalogue (GET /v1/models lists them)",
        code="model_not_found",
        param="model",
    )


def model_list(template_ids: Sequence[str], model_ids: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [model_card(name) for name in model_names(template_ids, model_ids)],
    }


def model_names(template_ids: Sequence[str], model_ids: Sequence[str] = ()) -> list[str]:
    """The engine's own name, a name per live path, and the catalogue's models."""
    return [
        BASE_MODEL,
        *(FORCED_PREFIX + template_id for template_id in template_ids),
        *model_ids,
    ]


def model_card(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "thinkpath"}


def _tool_provenance(decision: Decision) -> dict[str, Any] | None:
    run = decision.tool_run
    if run is None or not run.ok or not run.provenance:
        return None
    return {"tool": run.tool, "provenance": run.provenance, "fully_parsed": run.fully_parsed}


def extension(decision: Decision) -> dict[str, Any]:
    """The `thinkpath` object: what was chosen, how likely, from what, and what went wrong."""
    return {
        "decision_id": decision.id,
        "path": decision.path.arm_id,
        "tool": decision.tool.arm_id,
        "model": decision.model.arm_id if decision.model else None,
        "propensities": {
            "path": decision.path.propensity,
            "tool": decision.tool.propensity,
            **({"model": decision.model.propensity} if decision.model else {}),
        },
        "reasons": {
            "path": decision.path.reason,
            "tool": decision.tool.reason,
            **({"model": decision.model.reason} if decision.model else {}),
        },
        # What the tool whose result reached the answer did ("parsed the whole question and
        # computed 30 - 12 = 18"), and whether it read the whole question (only then exact).
        "tool_provenance": _tool_provenance(decision),
        "seed_sources": [source.source for source in decision.seed.sources],
        "degraded": decision.degraded,
        "degraded_reasons": list(decision.degraded_reasons),
        "outcomes": [
            {"source": outcome.source, "reward": outcome.reward} for outcome in decision.outcomes
        ],
        "feedback": f"/api/v1/decisions/{decision.id}/outcomes",
    }


def usage(decision: Decision) -> dict[str, int]:
    """Every call the decision made (seed, rating, answer, referee), not the answer's alone."""
    prompt, completion = decision.cost.prompt_tokens, decision.cost.completion_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion_body(decision: Decision, model: str, answer: str) -> dict[str, Any]:
    """The completion; its `model` is the catalogue model that answered (as OpenAI's names the
    snapshot that served the request), `model` as asked where the decision has none."""
    return {
        "id": decision.id,
        "object": "chat.completion",
        "created": int(decision.created_at.timestamp()),
        "model": decision.model.arm_id if decision.model else model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": usage(decision),
        "thinkpath": extension(decision),
    }


def chunk_body(
    decision_id: str,
    model: str,
    created: int,
    delta: Mapping[str, str],
    *,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    return {
        "id": decision_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [
            {"index": 0, "delta": dict(delta), "logprobs": None, "finish_reason": finish_reason}
        ],
    }


def unanswered(decision: Decision) -> OpenAIError:
    """The error for a decision that produced no answer: 429 if its budget ran out, else 500."""
    reasons = "; ".join(decision.degraded_reasons) or "no reason recorded"
    message = f"decision {decision.id} produced no answer: {reasons}"
    try:
        budget_stop = decision.step("answer").reason == "budget_stop"
    except KeyError:
        budget_stop = False
    if budget_stop:
        return OpenAIError(429, message, kind="insufficient_quota", code="budget_exceeded")
    return OpenAIError(500, message, kind="server_error", code="model_failed")
