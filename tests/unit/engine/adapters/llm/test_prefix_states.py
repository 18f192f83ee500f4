"""Which saved model state a prompt restores, which are kept, and within what budget."""

import pytest

from engine.adapters.llm.prefix_states import PrefixStates, SavedState, shared_prefix

SYSTEM = tuple(range(100, 140))  # an opening every answer prompt shares


def saved(tokens: tuple[int, ...], size: int = 10) -> SavedState[str]:
    return SavedState(tokens, f"state of {len(tokens)}", size=size)


def test_the_state_sharing_the_longest_prefix_is_restored() -> None:
    states: PrefixStates[str] = PrefixStates(1000, min_gain=4)
    short = saved((*SYSTEM[:10], 1, 2, 3))
    long = saved((*SYSTEM, 7, 8, 9))
    states.keep(short)
    states.keep(long)
    prompt = [*SYSTEM, 5, 6]
    assert states.worth_restoring(prompt, live=0) is long
    assert states.worth_restoring(prompt, live=len(SYSTEM) - 3) is None  # the context wins


def test_a_state_gaining_fewer_tokens_than_the_margin_is_not_restored() -> None:
    states: PrefixStates[str] = PrefixStates(1000, min_gain=16)
    states.keep(saved(SYSTEM))
    assert states.worth_restoring([*SYSTEM[:30], 1], live=15) is None
    assert states.worth_restoring([*SYSTEM[:31], 1], live=15) is not None


def test_the_live_state_is_kept_only_when_a_prompt_cuts_enough_of_it() -> None:
    states: PrefixStates[str] = PrefixStates(1000, min_gain=16)
    held = [*SYSTEM, 1, 2, 3]
    assert states.worth_keeping(held, [*SYSTEM, 1, 2, 3, 4]) is False  # extended, not cut
    assert states.worth_keeping(held, list(SYSTEM[:5])) is True
    assert states.worth_keeping(held[:10], []) is False  # too short to be worth a copy
    states.keep(saved(tuple(held)))
    assert states.worth_keeping(held, []) is False  # kept already, as it is


def test_the_least_recently_used_states_leave_past_the_budget() -> None:
    states: PrefixStates[str] = PrefixStates(30, min_gain=2)
    first, second, third = saved((1, 2, 3, 4)), saved((5, 6, 7, 8)), saved((9, 8, 7, 6))
    states.keep(first)
    states.keep(second)
    assert states.worth_restoring([1, 2, 3, 0], live=0) is first  # used: now the most recent
    states.keep(third)
    states.keep(saved((4, 4, 4, 4)))
    assert states.bytes == 30
    assert states.worth_restoring([1, 2, 3, 0], live=0) is first
    assert states.worth_restoring([5, 6, 7, 0], live=0) is None  # the oldest unused left


def test_a_state_over_the_whole_budget_or_a_budget_of_zero_keeps_nothing() -> None:
    states: PrefixStates[str] = PrefixStates(30)
    states.keep(saved(SYSTEM, size=31))
    assert len(states) == 0
    off: PrefixStates[str] = PrefixStates(0)
    assert off.worth_keeping(list(SYSTEM), []) is False


def test_keeping_the_same_tokens_again_replaces_the_state() -> None:
    states: PrefixStates[str] = PrefixStates(100)
    states.keep(saved(SYSTEM, size=10))
    states.keep(SavedState(SYSTEM, "newer", size=20))
    assert len(states) == 1
    assert states.bytes == 20


@pytest.mark.parametrize(
    ("held", "tokens", "shared"),
    [([], [1], 0), ([1, 2, 3], [1, 2, 3], 3), ([1, 2, 3], [1, 9, 3], 1), ([4], [1], 0)],
)
def test_shared_prefix(held: list[int], tokens: list[int], shared: int) -> None:
    assert shared_prefix(held, tokens) == shared


def test_a_bad_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="capacity_bytes"):
        PrefixStates(-1)
