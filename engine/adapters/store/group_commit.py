"""Group commit: outcomes that threads post at the same moment share one transaction.

On PostgreSQL a durable commit waits for the server's WAL flush, and the outcomes of a namespace
commit one at a time (its counter row stays locked until the flush). So one process's outcome
rate is at most one per flush however many threads post: about 250 a second where a flush takes
4 ms. Grouping lifts that bound. The first thread to post becomes the leader and writes what is
queued; threads that post meanwhile queue up and wait; the leader then writes all of them in
one transaction (one flush), and so on until its own outcome is written, when it hands the lead
to a waiting thread. A lone poster is never delayed: its batch of one takes the one-outcome path.

Every poster gets its own answer. A batch is all or nothing, so when one fails (an unknown
decision or a conflicting reward among them) its outcomes are retried one by one, and each
poster gets its own receipt or error, exactly as without grouping.
"""

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.domain.records import OutcomeReceipt, OutcomeRecord

MAX_BATCH = 512


@dataclass
class _Slot:
    outcome: OutcomeRecord
    receipt: OutcomeReceipt | None = None
    error: BaseException | None = None
    done: bool = False
    lead: bool = False  # this poster writes the queue (set before `wake`, under the lock)
    # Each poster sleeps on its own event: waking only the posters a batch wrote (not every
    # waiting thread at every commit) keeps the leader's core for writing.
    wake: threading.Event = field(default_factory=threading.Event)

    def finish(self, receipt: OutcomeReceipt | None, error: BaseException | None) -> None:
        self.receipt, self.error, self.done = receipt, error, True


class GroupCommit:
    """Writes outcomes posted concurrently in shared transactions (see the module docstring)."""

    def __init__(
        self,
        write_one: Callable[[OutcomeRecord], OutcomeReceipt],
        write_batch: Callable[[Sequence[OutcomeRecord]], list[OutcomeReceipt]],
        *,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._write_one = write_one
        self._write_batch = write_batch
        self._max_batch = max_batch
        self._queue: list[_Slot] = []
        self._leading = False
        self._lock = threading.Lock()
        self.batches = 0  # transactions written with more than one outcome (for tests, stats)

    def record(self, outcome: OutcomeRecord) -> OutcomeReceipt:
        """Write `outcome`, alone or with others posted meanwhile; its receipt or its error."""
        slot = _Slot(outcome)
        with self._lock:
            self._queue.append(slot)
            if not self._leading:
                self._leading = slot.lead = True
        if not slot.lead:
            slot.wake.wait()  # until a leader wrote it, or handed this poster the lead
        if not slot.done:
            self._lead(slot)
        if slot.error is not None:
            raise slot.error
        assert slot.receipt is not None
        return slot.receipt

    def _lead(self, own: _Slot) -> None:
        try:
            while not own.done:
                with self._lock:
                    batch = self._queue[: self._max_batch]
                    del self._queue[: self._max_batch]
                self._write(batch)
                for slot in batch:
                    slot.wake.set()
        finally:
            with self._lock:
                if self._queue:  # hand the lead to the longest-waiting poster
                    successor = self._queue[0]
                    successor.lead = True
                    successor.wake.set()
                else:
                    self._leading = False

    def _write(self, batch: list[_Slot]) -> None:
        if len(batch) > 1:
            try:
                receipts = self._write_batch([slot.outcome for slot in batch])
            except Exception:  # one bad outcome fails the batch: each is retried on its own below
                pass
            else:
                self.batches += 1
                for slot, receipt in zip(batch, receipts, strict=True):
                    slot.finish(receipt, None)
                return
        for slot in batch:
            try:
                slot.finish(self._write_one(slot.outcome), None)
            except Exception as error:  # the poster's own error, raised in the poster's thread
                slot.finish(None, error)
