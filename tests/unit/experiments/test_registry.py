"""Experiment names and parameters are validated before any work starts."""

import pytest

from engine.errors import ConfigError
from experiments.bandit_experiments import BanditParams
from experiments.registry import (
    available_experiments,
    get_experiment,
    parse_overrides,
    resolve_params,
)


def test_the_issue_experiments_are_all_registered() -> None:
    names = set(available_experiments())
    assert {"stationary-bernoulli", "stationary-gaussian", "drift-abrupt", "drift-gradual"} <= names
    assert {"contextual", "replay", "ope"} <= names


def test_an_unknown_experiment_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"'nope'.*stationary-bernoulli"):
        get_experiment("nope")


def test_defaults_quick_scale_and_overrides_apply_in_that_order() -> None:
    experiment = get_experiment("stationary-bernoulli")
    full = resolve_params(experiment)
    quick = resolve_params(experiment, quick=True)
    tuned = resolve_params(experiment, {"seeds": "7", "policies": "thompson, ucb1"}, quick=True)
    assert isinstance(full, BanditParams)
    assert isinstance(quick, BanditParams)
    assert isinstance(tuned, BanditParams)
    assert (full.seeds, full.horizon) == (20, 10_000)
    assert (quick.seeds, quick.horizon) == (3, 500)
    assert (tuned.seeds, tuned.horizon, tuned.policies) == (7, 500, ("thompson", "ucb1"))
    assert "thompson" in full.policies
    assert "random" in full.policies


@pytest.mark.parametrize(
    ("name", "overrides", "message"),
    [
        ("stationary-bernoulli", {"policies": "thompson,bogus"}, "bogus"),
        ("stationary-bernoulli", {"peers": "mabwiser:nothing"}, "mabwiser:nothing"),
        ("stationary-bernoulli", {"seeds": "0"}, "seeds"),
        ("stationary-bernoulli", {"horizon": "many"}, "horizon"),
        ("stationary-bernoulli", {"colour": "red"}, "colour"),
        ("stationary-bernoulli", {"policies": "thompson,thompson"}, "twice"),
        ("stationary-bernoulli", {"policies": "lints"}, r"lints|context"),
        ("replay", {"templates": "no_such_template"}, "no_such_template"),
        ("replay", {"families": "poetry"}, "poetry"),
        ("replay", {"context": "vibes"}, "context"),
        ("ope", {"confidence": "1.5"}, "confidence"),
    ],
)
def test_bad_parameters_are_named(name: str, overrides: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_params(get_experiment(name), overrides)


def test_set_pairs_become_overrides_or_a_clear_error() -> None:
    assert parse_overrides([" seeds = 7", "policies=a,b"]) == {"seeds": "7", "policies": "a,b"}
    for bad in ("seeds", "=7"):
        with pytest.raises(ConfigError, match="KEY=VALUE"):
            parse_overrides([bad])
