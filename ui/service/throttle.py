"""Back-off for failed logins and bearer tokens, per client address, in bounded memory.

Why: without it a guesser pays nothing per try (1,000 wrong logins took 22 s). Each address gets
`free_failures` failures for nothing; after that every failure puts the address in back-off for
twice as long as the last one, from `first_lockout_s` up to `max_lockout_s`. What back-off means
is the gate's to say (`ui.service.auth`): a wrong credential from an address in back-off is
answered slowly with 429, while the right one is still admitted, because refusing it too let a
guesser sharing the owner's address (or spoofing it) lock the owner out. An address quiet for
`forget_after_s` is forgotten; a success does not clear it, so that the owner's logins do not
give a guesser behind the same address a fresh start.

Memory is bounded by `max_addresses`: the least recently failing address is dropped first. An
attacker with more addresses than that can push others out, which only makes their own
back-off start over; the bound protects the server's memory, not against a botnet.

>>> throttle = FailureThrottle(free_failures=1, first_lockout_s=10, clock=lambda: 0.0)
>>> throttle.retry_after("10.0.0.1")
0.0
>>> throttle.fail("10.0.0.1"); throttle.retry_after("10.0.0.1")
0.0
>>> throttle.fail("10.0.0.1"); throttle.retry_after("10.0.0.1")
10.0
"""

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FailureThrottle"]


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0
    last_failure: float = 0.0


class FailureThrottle:
    """Counts failed credentials per address and says how long an address must wait."""

    def __init__(
        self,
        *,
        free_failures: int = 5,
        first_lockout_s: float = 1.0,
        max_lockout_s: float = 300.0,
        forget_after_s: float = 3600.0,
        max_addresses: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if free_failures < 0 or first_lockout_s <= 0 or max_lockout_s < first_lockout_s:
            raise ValueError("need free_failures >= 0 and 0 < first_lockout_s <= max_lockout_s")
        if max_addresses < 1:
            raise ValueError("max_addresses must be at least 1")
        self.free_failures = free_failures
        self.first_lockout_s = first_lockout_s
        self.max_lockout_s = max_lockout_s
        self.forget_after_s = forget_after_s
        self.max_addresses = max_addresses
        self._clock = clock
        self._lock = threading.Lock()
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def retry_after(self, address: str) -> float:
        """Seconds this address stays in back-off; 0 when it is not."""
        now = self._clock()
        with self._lock:
            record = self._current(address, now)
            return max(0.0, record.locked_until - now) if record else 0.0

    def fail(self, address: str) -> None:
        """Count a failed credential; past the free ones, back off for longer each time."""
        now = self._clock()
        with self._lock:
            record = self._current(address, now) or _Record()
            record.failures += 1
            record.last_failure = now
            over = record.failures - self.free_failures
            if over > 0:
                # 2**over would overflow a float for a long attack: cap the exponent first.
                lockout = self.first_lockout_s * 2.0 ** min(over - 1, 64)
                record.locked_until = now + min(lockout, self.max_lockout_s)
            self._records[address] = record
            self._records.move_to_end(address)
            while len(self._records) > self.max_addresses:
                self._records.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._records)

    def _current(self, address: str, now: float) -> _Record | None:
        record = self._records.get(address)
        if record is not None and now - record.last_failure > self.forget_after_s:
            del self._records[address]
            return None
        return record
