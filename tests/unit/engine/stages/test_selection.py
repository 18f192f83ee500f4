"""A draw kept to the allowed arms: its redraw is the policy's odds over them, exactly."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.stages.selection import Pick, draw_index, within


@settings(max_examples=200, deadline=None)
@given(
    weights=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=20),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_a_redraw_takes_what_numpy_choice_would_from_the_same_stream(
    weights: list[float], seed: int, data: st.DataObject
) -> None:
    arms = [f"arm{i:02d}" for i in range(len(weights))]
    odds = dict(zip(arms, weights, strict=True))
    allowed = data.draw(st.lists(st.sampled_from(arms[1:]), min_size=1, unique=True))
    kept = sorted(set(allowed))
    shares = np.array([odds[arm] for arm in kept])
    shares = shares / shares.sum() if shares.sum() > 0 else np.full(len(kept), 1 / len(kept))
    ours, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    redrawn = within(Pick(arms[0], 0.1, "chose_by_posterior"), allowed, odds, ours)
    expected = kept[int(numpy_rng.choice(len(kept), p=shares))]
    assert (redrawn.arm, redrawn.reason) == (expected, "cold_start")
    assert redrawn.propensity == shares[kept.index(expected)]
    assert ours.random() == numpy_rng.random()  # the same numbers drawn, no more


@settings(max_examples=200, deadline=None)
@given(
    weights=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20).filter(lambda w: sum(w) > 0),
    seed=st.integers(0, 2**32 - 1),
)
def test_draw_index_is_numpy_choice_on_the_same_stream(weights: list[float], seed: int) -> None:
    shares = np.array(weights) / sum(weights)
    ours, numpy_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    drawn = [draw_index(shares, ours) for _ in range(5)]
    assert drawn == [int(numpy_rng.choice(len(shares), p=shares)) for _ in range(5)]
    assert all(shares[index] > 0 for index in drawn)
