"""Back-off for failed logins and bearer tokens, per client address, in bounded memory.

Why: without it a guesser pays nothing per try (1,000 wrong logins took 22 s). Each address gets
`free_failures` failures for nothing; after that every failure puts the address in back-off for
twice as long as the last one, from `first_lockout_s` up to `max_lockout_s`. What back-off means
is the gate's to say (`ui.service.auth`): a wrong credential from an address in back-off is
answered slowly with 429, while the right one is still admitted, because refusing it too let a
guesser sharing the owner's address (or spoofing it) lock the owner out. An address quiet for
`forget_after_s` is forgotten; a success does not clear it, so that the owner's logins do not
give a guesser behind the same address a fresh start.

Memory is bounded by `max_addresses` (10,000: about 2.4 MB): at the bound, the least recently
failing address is dropped to make room, never an error. An attacker with more addresses than
that can push others out, which only makes those addresses' back-off start over; the bound
protects the server's memory, not against a botnet. Addresses forged behind a trusted proxy
push out only addresses: the proxy's budget is another throttle (`proxy_throttle`), one key per
trusted entry, which no number of forged addresses reaches.

A key shared by many honest clients (a trusted proxy, `ui.service.auth`) needs a budget that
refills: with `forgive_every_s`, one failure is forgiven every that many seconds, so failures
spread thinner than that never reach back-off, while a burst does. The count never grows past
the point where the lockout reaches `max_lockout_s` (more would change no answer), so once a
burst stops, its back-off ends within that many forgiven failures instead of lasting as long as
the burst was big.

>>> throttle = FailureThrottle(free_failures=1, first_lockout_s=10, clock=lambda: 0.0)
>>> throttle.retry_after("10.0.0.1")
0.0
>>> throttle.fail("10.0.0.1"); throttle.retry_after("10.0.0.1")
0.0
>>> throttle.fail("10.0.0.1"); throttle.retry_after("10.0.0.1")
10.0
"""

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FailureThrottle", "proxy_throttle"]


@dataclass(slots=True)  # 10,000 are kept: 239 bytes each with its key (255 without slots)
class _Record:
    failures: float = 0.0  # as of `last_failure`; a fraction only where failures are forgiven
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
        forgive_every_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if free_failures < 0 or first_lockout_s <= 0 or max_lockout_s < first_lockout_s:
            raise ValueError("need free_failures >= 0 and 0 < first_lockout_s <= max_lockout_s")
        if max_addresses < 1:
            raise ValueError("max_addresses must be at least 1")
        if forgive_every_s is not None and not forgive_every_s > 0:
            raise ValueError("forgive_every_s must be positive (or None: nothing forgiven)")
        self.free_failures = free_failures
        self.first_lockout_s = first_lockout_s
        self.max_lockout_s = max_lockout_s
        self.forget_after_s = forget_after_s
        self.max_addresses = max_addresses
        self.forgive_every_s = forgive_every_s
        # Failures past the free ones that bring the lockout to its cap: counting more changes
        # nothing but how long a refilling budget takes to come back.
        self._max_over = math.ceil(math.log2(max_lockout_s / first_lockout_s)) + 1
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
            failures = self._failures(record, now) + 1
            record.failures = min(failures, self.free_failures + self._max_over)
            record.last_failure = now
            over = math.ceil(record.failures - self.free_failures)
            if over > 0:
                lockout = self.first_lockout_s * 2.0 ** (over - 1)
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

    def _failures(self, record: _Record, now: float) -> float:
        if self.forgive_every_s is None:
            return record.failures
        forgiven = (now - record.last_failure) / self.forgive_every_s
        return max(0.0, record.failures - forgiven)


def proxy_throttle(clock: Callable[[], float] = time.monotonic) -> FailureThrottle:
    """The back-off of one trusted proxy: the budget of wrong credentials that every client
    behind it shares, whatever address each one's `X-Forwarded-For` names.

    The numbers, and why:
    - 100 free failures: twenty clients' worth of an address's five, for the many honest
      users a proxy carries (a team behind one nginx), and still far below the 1,000 guesses
      that forged addresses bought before;
    - one failure forgiven every 36 s (100 an hour): honest typos spread thinner than that
      never put the proxy in back-off however long the service runs, where a count that only
      an hour of quiet clears would at last have caught every busy proxy. A guesser behind it
      gets 100 wrong tokens answered at once, then at most 100 an hour; every other one is held
      and answered 429, whatever address its header names;
    - back-off from 1 s up to 60 s, not the address's 300 s: its `Retry-After` is told to any
      client of the proxy that mistypes during an attack, so it stays short; and since the count
      stops where the lockout reaches 60 s (`FailureThrottle`), the back-off ends about
      8 x 36 s = 5 minutes after an attack stops, whatever its size;
    - 1,000 proxies remembered: there is one key per `THINKPATH_TRUSTED_PROXIES` entry.

    What it costs: during an attack through a proxy, a client behind it that sends a wrong
    token gets 429 and a pause instead of 401; the right token is admitted as always.
    """
    return FailureThrottle(
        free_failures=100,
        first_lockout_s=1.0,
        max_lockout_s=60.0,
        forgive_every_s=36.0,
        max_addresses=1000,
        clock=clock,
    )
