"""Back-off per address for failed credentials, on a hand-driven clock."""

import pytest

from ui.service.throttle import FailureThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def throttle(clock: Clock, **options: float) -> FailureThrottle:
    settings = {"free_failures": 2, "first_lockout_s": 1.0, "max_lockout_s": 8.0, **options}
    return FailureThrottle(clock=clock, **settings)  # type: ignore[arg-type]


def test_free_failures_then_a_doubling_lockout_up_to_the_cap() -> None:
    clock = Clock()
    guard = throttle(clock)
    waits = []
    for _ in range(8):
        guard.fail("10.0.0.1")
        waits.append(guard.retry_after("10.0.0.1"))
    assert waits == [0.0, 0.0, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_the_lockout_passes_with_time_and_is_per_address() -> None:
    clock = Clock()
    guard = throttle(clock)
    for _ in range(4):
        guard.fail("10.0.0.1")
    assert guard.retry_after("10.0.0.1") == 2.0
    assert guard.retry_after("10.0.0.2") == 0.0
    clock.now += 2.5
    assert guard.retry_after("10.0.0.1") == 0.0
    guard.fail("10.0.0.1")  # the count is remembered: the next lockout is longer
    assert guard.retry_after("10.0.0.1") == 4.0


def test_quiet_addresses_are_forgotten() -> None:
    clock = Clock()
    guard = throttle(clock, forget_after_s=60.0)
    for _ in range(3):
        guard.fail("b")
    assert guard.retry_after("b") > 0.0
    clock.now += 61
    assert guard.retry_after("b") == 0.0
    guard.fail("b")
    assert guard.retry_after("b") == 0.0  # a fresh start: a free failure again


def test_memory_is_bounded_by_the_number_of_addresses() -> None:
    clock = Clock()
    guard = throttle(clock, max_addresses=100)
    for n in range(1000):
        guard.fail(f"10.0.{n // 256}.{n % 256}")
    assert len(guard) == 100


def test_a_long_attack_does_not_overflow() -> None:
    clock = Clock()
    guard = throttle(clock)
    for _ in range(5000):
        guard.fail("a")
    assert guard.retry_after("a") == 8.0


def test_nonsense_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="first_lockout_s"):
        FailureThrottle(first_lockout_s=0)
    with pytest.raises(ValueError, match="max_addresses"):
        FailureThrottle(max_addresses=0)


def test_without_forgiveness_the_count_waits_for_quiet_to_be_forgotten() -> None:
    clock = Clock()
    guard = throttle(clock, forget_after_s=3600.0)
    for _ in range(3):
        guard.fail("a")
        clock.now += 1800  # half an hour apart: never quiet long enough to be forgotten
    assert guard.retry_after("a") == 0.0  # its lockout has passed ...
    guard.fail("a")
    assert guard.retry_after("a") == 2.0  # ... but the count stands: the fourth is not free


def test_forgiven_failures_spread_thinly_never_reach_back_off() -> None:
    clock = Clock()
    guard = throttle(clock, forgive_every_s=10.0)
    for _ in range(1000):
        guard.fail("proxy")
        assert guard.retry_after("proxy") == 0.0
        clock.now += 10.0


def test_a_burst_is_not_forgiven_and_its_count_stops_at_the_cap() -> None:
    def after_a_burst(quiet_s: float) -> float:
        clock = Clock()
        guard = throttle(clock, forgive_every_s=10.0)  # 2 free, lockout 1 s doubling to 8 s
        for _ in range(1000):
            guard.fail("proxy")
        assert guard.retry_after("proxy") == 8.0
        clock.now += quiet_s
        guard.fail("proxy")
        return guard.retry_after("proxy")

    # The count stops at 2 free + 4 (the fourth past the free ones already locks for 8 s), not
    # at 1,000, which would take 9,990 s to forgive: five forgiven leave room for a free one.
    assert after_a_burst(49.0) > 0.0
    assert after_a_burst(50.0) == 0.0


def test_forgiveness_must_be_positive() -> None:
    with pytest.raises(ValueError, match="forgive_every_s"):
        FailureThrottle(forgive_every_s=0)
