"""Long-lived daemon threads that run tool calls, so that a call does not start a thread.

Why not a thread per call: starting one costs a system call and a hand-shake with the new thread
(the starter waits until it runs), about a tenth of a millisecond on a quiet machine and several
on a busy one, for tools that answer in microseconds. Why not `concurrent.futures`: its workers
are joined when the interpreter exits, so a tool stuck past its deadline would keep the process
alive; these are daemon threads, as the per-call threads were.

A worker that is running an abandoned call (one past its deadline) stays busy until the call
ends, so the pool grows by one thread for each call that finds no idle worker; the registry's
`max_in_flight` slots bound the calls running at once, and so the threads.
"""

import queue
import threading
from collections.abc import Callable

__all__ = ["WorkerPool"]

Job = Callable[[], None]


class WorkerPool:
    """Runs jobs on up to `size` daemon threads, started only when no started one is idle.

    The caller must not submit more than `size` unfinished jobs (the registry's slots see to
    it), so every job starts at once on an idle or a new worker.

    >>> done = threading.Event()
    >>> pool = WorkerPool(2, name="demo")
    >>> pool.submit(done.set)
    >>> done.wait(5), pool.started
    (True, 1)
    """

    def __init__(self, size: int, *, name: str) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one thread, got {size}")
        self._size = size
        self._name = name
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # workers waiting for a job, or on their way to wait for one
        self._pending = 0  # jobs submitted that no worker has taken yet
        self.started = 0  # threads started so far (they live as long as the process)

    def submit(self, job: Job) -> None:
        """Run `job` on an idle worker, or on a new one; it must not raise."""
        with self._lock:
            self._pending += 1
            # With every thread started, a job that finds none idle waits only for the one
            # that is ending its call: the caller's limit leaves a worker free for each job.
            grow = self._pending > self._idle and self.started < self._size
            if grow:
                self.started += 1
                number = self.started
        self._jobs.put(job)
        if grow:
            worker = threading.Thread(
                target=self._serve, name=f"{self._name}-{number}", daemon=True
            )
            worker.start()

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                self._pending -= 1
            job()
