"""Mend Gradio's queue, so that no number of calls stops the playground; and say whether it runs.

What broke (Gradio 6.31, `gradio/queueing.py`): the queue keeps each session's pending
messages in `pending_messages_per_session`, an `LRUCache(2000)`. A call such as
`POST /gradio_api/call/show` opens a session of its own, and a caller who never reads the
result leaves that session in the cache. Once 2,000 newer sessions have pushed out one whose
event is still queued, `Queue.send_message` looks the session up and raises KeyError. When
that happens in `broadcast_estimations`, called from the processing loop, the KeyError ends
`Queue.start_processing`, whose `finally` sets `stopped`: from then on every call answers 503
"Queue is stopped." until the process restarts. About 2,100 quick calls, 50 at a time, did it.
Upstream, gradio-app/gradio#11167 reports "Queue is stopped." on 4.x and 5.x, closed without a
reproduction; no release is known to fix it, so pinning is no remedy and Gradio stays as locked.
If an upgrade changes these internals, `tests/unit/ui/test_gradio_queue.py` says so.

The mend, on the one `Queue` of our `Blocks` (no class of Gradio's is patched):

1. A message for a session no longer held is dropped, not raised: nobody can read it any more
   (`/queue/data` and `/call/<name>/<id>` answer "session not found" for it).
2. When the cache lets a session go, that session's queued events leave the queue (as Gradio's
   `clean_events` does when a browser disconnects) and its pending event ids are forgotten. The
   queue then never runs work whose result nobody can fetch, and `pending_event_ids_session`
   stays bounded (it kept one entry for every call whose result was never read).

`queue_problem` is what `/api/v1/health` reports: None while the queue runs, else why not.
"""

from collections.abc import Callable
from typing import Any

from gradio.blocks import Blocks
from gradio.queueing import Event, Queue
from gradio.utils import LRUCache

__all__ = ["HeldSessions", "drop_session", "mend_queue", "queue_problem"]


class HeldSessions(LRUCache[str, Any]):
    """Gradio's session cache, which says which session it lets go, so that it can be cleaned."""

    def __init__(self, max_size: int, let_go: Callable[[str], None]) -> None:
        super().__init__(max_size)
        self._let_go = let_go

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self and len(self) >= self.max_size:
            oldest, _ = self.popitem(last=False)
            self._let_go(oldest)
        super().__setitem__(key, value)


def mend_queue(blocks: Blocks) -> Queue:
    """Mend `blocks`' queue in place (see the module's docstring) and return it."""
    queue: Queue = blocks._queue
    deliver = queue.send_message

    def send_if_held(event: Event, message: Any) -> None:
        if event.session_hash in queue.pending_messages_per_session:
            deliver(event, message)

    def let_go(session: str) -> None:
        drop_session(queue, session)

    held = HeldSessions(queue.pending_messages_per_session.max_size, let_go)
    held.update(queue.pending_messages_per_session)
    queue.pending_messages_per_session = held
    # On this one queue, not on Gradio's class: other Blocks in the process keep Gradio's own.
    queue.send_message = send_if_held  # type: ignore[method-assign, assignment]
    return queue


def drop_session(queue: Queue, session: str) -> None:
    """What Gradio's `clean_events` does for a session, for its own events only, and its messages.

    `clean_events` walks every queued event; called for each session let go, that made each call
    cost time in proportion to the backlog. Runs on the server's loop with no await: no other
    step of the queue runs in between.
    """
    for event_id in queue.pending_event_ids_session.pop(session, ()):
        event = queue.event_ids_to_events.pop(event_id, None)
        if event is None:
            continue
        event.alive = False  # a running event: its messages are dropped from now on
        waiting = queue.event_queue_per_concurrency_id.get(event.concurrency_id)
        if waiting is not None and event in waiting.queue:
            waiting.queue.remove(event)
    # OrderedDict's own pop: the cache's `let_go` hook is for what it pushes out, not this.
    queue.pending_messages_per_session.pop(session, None)


def queue_problem(blocks: Blocks) -> str | None:
    """None while the playground's queue can take calls; else what is wrong with it."""
    if blocks._queue.stopped:
        return "the playground's queue has stopped: calls to the playground answer 503"
    return None
