"""The experiments' bandit workloads: the benchmark's four plus Gaussian and gradual drift.

The environment type, its common-random-numbers draw and the benchmark's workloads (stationary
Bernoulli, the hard instance, ranks reversed at T/2, one-hot contexts) live in
`experiments.benchmarks.environments` and are reused as they are; this module adds the two kinds
the experiments need beyond them. Rewards stay in [0, 1] because every policy takes [0, 1].

>>> import numpy as np
>>> env = gradual_drift(3, horizon=5, rng=np.random.default_rng(0))
>>> env.step_means.shape, bool(np.all(env.step_means[0] == env.step_means[-1][::-1]))
((5, 3), True)
"""

import numpy as np

from engine.errors import ConfigError
from experiments.benchmarks.environments import Environment, Workload, standard_workloads

__all__ = ["clipped_normal_mean", "experiment_workloads", "gradual_drift", "stationary_gaussian"]


def clipped_normal_mean(mean: np.ndarray, sigma: float) -> np.ndarray:
    """E[clip(X, 0, 1)] for X ~ N(mean, sigma^2).

    With a = -mean / sigma and b = (1 - mean) / sigma:
    E = mean (Phi(b) - Phi(a)) + sigma (phi(a) - phi(b)) + 1 - Phi(b).

    >>> round(float(clipped_normal_mean(np.array([0.5]), 0.1)[0]), 6)
    0.5
    """
    from scipy.stats import norm  # noqa: PLC0415 - seconds to import; the playground lists
    # these workloads while the service starts, and needs this only when one runs

    low, high = -mean / sigma, (1.0 - mean) / sigma
    return np.asarray(
        mean * (norm.cdf(high) - norm.cdf(low))
        + sigma * (norm.pdf(low) - norm.pdf(high))
        + (1.0 - norm.cdf(high))
    )


def stationary_gaussian(
    n_arms: int, horizon: int, rng: np.random.Generator, sigma: float = 0.2
) -> Environment:
    """Gaussian arms N(mu_k, sigma^2), mu_k ~ U(0.2, 0.8), rewards clipped to [0, 1].

    Clipping moves an arm's expectation towards the middle, so regret is measured against the
    exact mean of the clipped normal (`clipped_normal_mean`), not the nominal mu_k.
    """
    if n_arms < 2 or horizon < 2:
        raise ConfigError(f"need at least 2 arms and 2 steps, got {n_arms} arms, {horizon} steps")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ConfigError(f"sigma must be a positive number, got {sigma!r}")
    nominal = rng.uniform(0.2, 0.8, size=n_arms)
    rewards = np.clip(nominal + sigma * rng.standard_normal((horizon, n_arms)), 0.0, 1.0)
    step_means = np.broadcast_to(clipped_normal_mean(nominal, sigma), (horizon, n_arms)).copy()
    return Environment(step_means, rewards)


def gradual_drift(n_arms: int, horizon: int, rng: np.random.Generator) -> Environment:
    """Bernoulli arms whose means slide linearly from their start to the reversed order.

    Means start uniform in [0, 1] and end with the ranks reversed (as the abrupt workload), but
    the change is spread over the whole horizon, so the best arm changes gradually mid-run.
    """
    if n_arms < 2 or horizon < 2:
        raise ConfigError(f"need at least 2 arms and 2 steps, got {n_arms} arms, {horizon} steps")
    start = rng.random(n_arms)
    order = np.argsort(start)
    end = np.empty(n_arms)
    end[order] = start[order[::-1]]
    fraction = np.linspace(0.0, 1.0, horizon)[:, None]
    step_means = (1.0 - fraction) * start + fraction * end
    rewards = (rng.random(step_means.shape) < step_means).astype(np.float64)
    return Environment(step_means, rewards)


def experiment_workloads() -> dict[str, Workload]:
    """Every bandit workload the experiments can run, by key."""
    workloads = standard_workloads()
    workloads["gaussian"] = Workload(
        "gaussian",
        "Stationary Gaussian, K=10, means ~ U(0.2, 0.8), sigma 0.2, clipped to [0, 1]",
        10,
        None,
        lambda horizon, rng: stationary_gaussian(10, horizon, rng),
    )
    workloads["drift-gradual"] = Workload(
        "drift-gradual",
        "Bernoulli means sliding linearly to the reversed ranks over the horizon, K=10",
        10,
        None,
        lambda horizon, rng: gradual_drift(10, horizon, rng),
    )
    return workloads
