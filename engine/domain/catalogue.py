"""The models the engine may answer with: its catalogue, each model an arm of the `model` role.

A decision's model is chosen per kind of query like its path and tool (`ArmBook.model_choice`),
and every stage of that decision runs on it: the seed, the rating and the detour, the path's
procedure, the option arms (constrained choice with that model's grammar, option likelihood on
that model's own log-probabilities where it is in-process), the program tool and the referee.
docs/engine.md, "Models as arms", says why the model is a role of its own rather than a joint
(model, path) arm.

A model's id is the litellm string it was configured with (`local/smollm2`,
`openai/gpt-4o-mini`), so the id a decision stores says which model answered, on any replica.
"""

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from engine.domain.ports import LLM, OptionScorer
from engine.errors import ConfigError, UnknownModelError

__all__ = ["MAX_MODELS", "ModelCatalogue", "ModelEntry"]

# More models than this is a router's job, not an arm set: each is explored on every new kind.
MAX_MODELS = 8


@dataclass(frozen=True)
class ModelEntry:
    """One model of the catalogue: its id, its chat client, and its option scorer (None where
    the model gives no prompt log-probabilities: a hosted one)."""

    id: str
    llm: LLM
    option_scorer: OptionScorer | None = None


class ModelCatalogue(Mapping[str, ModelEntry]):
    """The catalogue's models by id, in the order configured (the first is the default of an
    engine that learns no model choice: a single-model catalogue).

    >>> from engine.domain.ports import LLM
    >>> class Echo:
    ...     def complete(self, request): ...
    >>> catalogue = ModelCatalogue([ModelEntry("local/a", Echo()), ModelEntry("local/b", Echo())])
    >>> catalogue.ids, catalogue.resolve("local/b").id
    (('local/a', 'local/b'), 'local/b')
    >>> catalogue.resolve("local/c")
    Traceback (most recent call last):
    ...
    engine.errors.UnknownModelError: model 'local/c' is not in the catalogue: ...
    """

    def __init__(self, entries: Sequence[ModelEntry]) -> None:
        if not entries:
            raise ConfigError("the model catalogue is empty: name at least one model")
        if len(entries) > MAX_MODELS:
            raise ConfigError(f"the model catalogue holds at most {MAX_MODELS} models")
        ids = [entry.id for entry in entries]
        repeated = sorted({model for model in ids if ids.count(model) > 1})
        if repeated:
            raise ConfigError(f"the model catalogue names {repeated} more than once")
        self._entries = {entry.id: entry for entry in entries}

    @classmethod
    def of_one(cls, llm: LLM, option_scorer: OptionScorer | None = None) -> "ModelCatalogue":
        """A catalogue of one given model (a test's scripted one, a stand-in), named by its
        `model` attribute (a litellm string), else "default"."""
        name = getattr(llm, "model", None)
        model_id = name if isinstance(name, str) and name else "default"
        return cls([ModelEntry(model_id, llm, option_scorer)])

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def resolve(self, model: str) -> ModelEntry:
        """The entry of a model a client pins; `UnknownModelError` names the ones there are."""
        entry = self._entries.get(model) if isinstance(model, str) else None
        if entry is None:
            raise UnknownModelError(
                f"model {str(model)[:80]!r} is not in the catalogue: choose one of "
                f"{list(self._entries)} (THINKPATH_MODELS), or leave it out to let the engine "
                "choose"
            )
        return entry

    def __getitem__(self, model: str) -> ModelEntry:
        return self._entries[model]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
