"""Every experiment by name, and the validation of a run's parameters before any work starts."""

import typing
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.errors import ConfigError, ThinkPathError
from experiments.bandit_experiments import bandit_experiments
from experiments.experiment import Experiment

__all__ = ["available_experiments", "get_experiment", "parse_overrides", "resolve_params"]


def available_experiments() -> dict[str, Experiment]:
    """Every experiment, by name, in a stable order."""
    from experiments.online_experiment import online_experiment  # noqa: PLC0415
    from experiments.ope_experiment import ope_experiment  # noqa: PLC0415 - a cycle otherwise
    from experiments.replay_experiment import replay_experiment  # noqa: PLC0415

    experiments = dict(bandit_experiments())
    for experiment in (replay_experiment(), ope_experiment(), online_experiment()):
        experiments[experiment.name] = experiment
    return experiments


def get_experiment(name: str) -> Experiment:
    """The experiment called `name`, or `ConfigError` listing the known ones."""
    experiments = available_experiments()
    if name not in experiments:
        raise ConfigError(f"unknown experiment {name!r}; known experiments: {sorted(experiments)}")
    return experiments[name]


def _coerce(model: type[BaseModel], key: str, value: Any) -> Any:
    """Command-line strings to field values: a comma-separated list for a tuple field."""
    annotation = model.model_fields[key].annotation
    if isinstance(value, str) and typing.get_origin(annotation) is tuple:
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`--set KEY=VALUE` pairs as overrides for `resolve_params` (values still strings)."""
    overrides: dict[str, Any] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key.strip():
            raise ConfigError(f"--set takes KEY=VALUE, got {pair!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def resolve_params(
    experiment: Experiment, overrides: Mapping[str, Any] | None = None, *, quick: bool = False
) -> BaseModel:
    """Defaults, then the quick scale (when asked), then `overrides`; validated, or ConfigError.

    Validation covers the fields (names, ranges) and the experiment's own checks (every policy
    and peer name is built once), so a bad run fails here, before any work or any MLflow run.
    """
    model = experiment.params_model
    unknown = sorted(set(overrides or {}) - set(model.model_fields))
    if unknown:
        raise ConfigError(
            f"unknown parameters {unknown} for experiment {experiment.name!r}; "
            f"its parameters are {sorted(model.model_fields)}"
        )
    values = dict(experiment.defaults())
    if quick:
        values.update(experiment.quick)
    values.update({key: _coerce(model, key, value) for key, value in (overrides or {}).items()})
    try:
        params = model(**values)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(map(str, item['loc']))}: {item['msg']}" for item in error.errors()
        )
        raise ConfigError(f"invalid parameters for {experiment.name!r}: {problems}") from None
    try:
        experiment.validate(params)
    except ThinkPathError as error:
        raise ConfigError(f"invalid parameters for {experiment.name!r}: {error}") from error
    return params
