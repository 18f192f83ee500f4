"""The playground's queue, shared fairly: unread results expire, no client holds over its share.

What went wrong (Gradio 6.31, measured through the service): after 3,000 `call/` requests whose
results were never read, the queue held 1,999 events; a person's Arms-tab call waited at rank
1,990 (ETA 11,979 s) while health said `ok`, and the server grew 671 -> 997 MB over 5,100 calls.
One token holder's 2,100 calls pushed another user's queued event out of Gradio's session cache
(`ui.service.gradio_queue`), and so cancelled it. Reading a finished session's stream a second
time hung on heartbeats (Gradio keeps the emptied session), and two readers of one session
raced to delete it: the second one's disconnect logged `KeyError` in `gradio/routes.py`.

Gradio's own options do not help here: `max_size` refuses everyone alike once one client has
filled it, and `concurrency_id` / `default_concurrency_limit` shape how many run at once, not who
may wait. So `QueueGuard`, an ASGI middleware in front of the mounted app's join and data routes,
keeps a book (`PlaygroundQueue`) of whose sessions are waiting and whether anyone reads them:

- **Share.** A client (the address the token gate counts, `ui.service.auth.client_key`: behind
  a trusted proxy, the forwarded one) holds at most `per_client` events whose results are not
  read yet (queued, running or finished); one more join gets 429 with Retry-After. All clients
  together hold at most `capacity`: past that a join gets 503. Both are far below Gradio's 2,000
  sessions, so the cache never lets a live session go: another user's event is never dropped.
- **Expiry.** A session that nobody reads (no stream open on it) for `unread_after_s` is let
  go: its queued events leave the queue, a running one's result is dropped, its finished
  results and its session state are freed. A stream that ends with events still pending starts
  the clock again.
- **One reader.** A second stream on a session being read gets 409 at once. A stream that read
  everything frees the session, so reading it again gets 404 "already read" at once, as does
  a session that expired ("expired"); neither reaches Gradio.

`PlaygroundQueue.problem` is what health reports: a queue that is backing up (`backlog_at` or
more events waiting, or one waiting `stall_after_s`) makes it `degraded`, with the queue's size.

The book is changed only on the server's event loop, in steps with no `await` inside, as
Gradio's queue is: no step of the queue runs in between. Health reads it from a worker thread
and only reads numbers.
"""

import asyncio
import json
import math
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

from gradio.blocks import Blocks
from gradio.queueing import Queue
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ui.service.auth import client_key
from ui.service.gradio_queue import drop_session
from ui.service.replies import send_json

__all__ = ["PlaygroundQueue", "QueueGuard", "QueueLimits"]

# The routes that put an event in the queue, and the streams that read results (v2 too).
_JOIN = re.compile(r"^/gradio_api/(?:queue/join|call/(?:v2/)?[^/]+)/?$")
_READ = re.compile(r"^/gradio_api/(?:queue/data|call/(?:v2/)?[^/]+/(?P<event>[^/]+))/?$")
GONE_KEPT = 4096  # how many let-go sessions are remembered, to say why their stream is a 404
SECOND_READER_WAITS = 20  # 50 ms each: how long a second stream waits for the first to close


@dataclass(frozen=True)
class QueueLimits:
    """How much of the playground's queue one client, and all of them, may hold.

    A browser tab holds a few events at once (the page's loads and their `.then` steps); 32
    leaves room for several tabs behind one address. 60 s is many times what the page and
    `gradio_client` take between joining and reading (they read at once).
    """

    per_client: int = 32
    capacity: int = 256
    unread_after_s: float = 60.0
    backlog_at: int = 128  # this many events waiting is a queue backing up
    stall_after_s: float = 300.0  # and so is one event waiting this long

    def __post_init__(self) -> None:
        if not 1 <= self.per_client <= self.capacity or self.unread_after_s <= 0:
            raise ValueError("need 1 <= per_client <= capacity and unread_after_s > 0")


class PlaygroundQueue:
    """The book of who holds which session of the queue, and whether anyone reads it."""

    def __init__(
        self,
        blocks: Blocks,
        limits: QueueLimits = QueueLimits(),  # frozen: one shared default is safe
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.blocks = blocks
        self.limits = limits
        self.clock = clock
        self._owner: dict[str, str] = {}  # session -> the client that joined it
        self._sessions_of: dict[str, set[str]] = {}  # client -> its sessions
        self._readers: set[str] = set()  # sessions with a stream open now
        self._unread_since: dict[str, float] = {}  # unread session -> since when
        self._deadlines: deque[tuple[float, str]] = deque()  # (expiry, session), in order
        self._gone: OrderedDict[str, str] = OrderedDict()  # let-go session -> why
        self._one_call: set[str] = set()  # sessions of one `call/` each: no state to keep
        self.expired = 0  # sessions let go unread, since start

    @property
    def queue(self) -> Queue:
        queue: Queue = self.blocks._queue
        return queue

    def held_by(self, client: str) -> int:
        """Events of `client` whose results are not read yet (queued, running or finished)."""
        pending = self.queue.pending_event_ids_session
        held = 0
        for session in list(self._sessions_of.get(client, ())):
            count = len(pending.get(session, ()))
            if count == 0 and session not in self._readers:
                self._forget(session)
            held += count
        return held

    def held(self) -> int:
        """Events of every client whose results are not read yet."""
        pending = self.queue.pending_event_ids_session
        return sum(len(pending.get(session, ())) for session in list(self._owner))

    def refusal(self, client: str) -> tuple[int, str] | None:
        """Why `client` may not join now (a status and a reason), or None if it may."""
        self.expire_unread()
        limits = self.limits
        mine = self.held_by(client)
        if mine >= limits.per_client:
            return 429, (
                f"this client holds {mine} playground calls whose results it has not read (at "
                f"most {limits.per_client}): read them, or wait; unread ones expire after "
                f"{limits.unread_after_s:g} s"
            )
        if self.held() >= limits.capacity:
            return 503, f"the playground's queue is full ({limits.capacity} calls): try later"
        return None

    def joined(self, client: str, session: str, *, one_call: bool = False) -> None:
        """`client`'s join of `session` was taken: count it, and start its clock if unread.

        `one_call`: the session is the event's own (a `call/` that named none), so nothing
        comes after it and its state can go with it.
        """
        if session not in self.queue.pending_messages_per_session:
            return  # already finished, read and let go
        if one_call:
            self._one_call.add(session)
        self._owner.setdefault(session, client)
        self._sessions_of.setdefault(self._owner[session], set()).add(session)
        self._gone.pop(session, None)
        if session not in self._readers:
            self._start_clock(session)

    def is_read(self, session: str) -> bool:
        """Whether a stream on `session` is open now."""
        return session in self._readers

    def reading(self, session: str) -> tuple[int, str] | None:
        """A stream on `session` starts, or the refusal it gets instead (status, reason)."""
        self.expire_unread()
        if session in self._readers:
            return 409, "this result is being read by another connection"
        queue = self.queue
        if session not in queue.pending_messages_per_session:
            why = self._gone.get(session)
            if why is None:
                return None  # not ours: Gradio's own 404 (`ui.service.gradio_calls`)
            return 404, f"no result to read here: it was {why}"
        if not queue.pending_event_ids_session.get(session):
            # Everything was read, yet Gradio kept the session: its stream would only beat.
            self._let_go(session, "already read")
            return 404, "no result to read here: it was already read"
        self._readers.add(session)
        self._unread_since.pop(session, None)
        return None

    def done_reading(self, session: str) -> None:
        """A stream on `session` ended: free what it read, or start the clock on what is left."""
        self._readers.discard(session)
        queue = self.queue
        if session in queue.pending_messages_per_session and queue.pending_event_ids_session.get(
            session
        ):
            if session in self._owner:
                self._start_clock(session)
            return
        # Read to the end, or its reader went away and Gradio cleaned the session: either way
        # nothing more will come. Gradio keeps an emptied session, whose stream only beats.
        left = queue.pending_event_ids_session.get(session)
        why = "left unread by a reader that went away" if left else "already read"
        self._let_go(session, why, state=session in self._one_call)

    def expire_unread(self) -> None:
        """Let go every session that nobody has read for `unread_after_s`."""
        now = self.clock()
        while self._deadlines and self._deadlines[0][0] <= now:
            _, session = self._deadlines.popleft()
            since = self._unread_since.get(session)
            if since is not None and since + self.limits.unread_after_s <= now:
                self.expired += 1
                self._let_go(session, f"not read within {self.limits.unread_after_s:g} s")

    def next_expiry_in(self) -> float | None:
        """Seconds until the next session may expire, or None when none is waiting."""
        return max(0.0, self._deadlines[0][0] - self.clock()) if self._deadlines else None

    def problem(self) -> str | None:
        """What health reports: why the queue is backing up, with its size; None if it is not."""
        # Copies, read at once: the loop changes these lists while this thread reads them.
        lines = list(self.queue.event_queue_per_concurrency_id.values())
        waiting = [list(line.queue) for line in lines]
        size = sum(len(events) for events in waiting)
        heads = [events[0].enqueue_time for events in waiting if events]
        oldest = time.monotonic() - min(heads) if heads else 0.0  # Gradio's own clock
        limits = self.limits
        if size < limits.backlog_at and oldest < limits.stall_after_s:
            return None
        return (
            f"the playground's queue is backing up: {size} calls waiting, the oldest for "
            f"{oldest:.0f} s ({self.held()} held, at most {limits.capacity})"
        )

    def _start_clock(self, session: str) -> None:
        now = self.clock()
        self._unread_since[session] = now
        self._deadlines.append((now + self.limits.unread_after_s, session))

    def _let_go(self, session: str, why: str, *, state: bool = True) -> None:
        """Take `session` out of the queue and out of the book, remembering why for a reader.

        An expired session's state goes too (nobody came back for it); a session read to the
        end keeps its state, which a page or `gradio_client` carries from call to call.
        """
        drop_session(self.queue, session)
        holder = getattr(self.blocks, "state_holder", None)
        if holder is not None and state:
            holder.session_data.pop(session, None)
            holder.time_last_used.pop(session, None)
        self._forget(session)
        self._gone[session] = why
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)

    def _forget(self, session: str) -> None:
        self._unread_since.pop(session, None)
        self._one_call.discard(session)
        client = self._owner.pop(session, None)
        sessions = self._sessions_of.get(client or "")
        if sessions is not None:
            sessions.discard(session)
            if not sessions:
                del self._sessions_of[client or ""]


class QueueGuard:
    """ASGI middleware over the mounted Gradio app: Gradio's joins and reads, kept to the book."""

    def __init__(self, app: ASGIApp, book: PlaygroundQueue) -> None:
        self.app = app
        self.book = book
        self._timer = False  # whether an expiry sweep is scheduled on the loop

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and _JOIN.match(scope["path"]):
            await self._join(scope, receive, send)
        elif (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and (read := _READ.match(scope["path"]))
        ):
            await self._read(scope, receive, send, read.group("event"))
        else:
            await self.app(scope, receive, send)

    async def _join(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_key(scope["client"][0] if scope.get("client") else "unknown")
        refusal = self.book.refusal(client)
        if refusal is not None:
            status, reason = refusal
            retry = str(math.ceil(self.book.limits.unread_after_s)).encode()
            await send_json(send, status, reason, [(b"retry-after", retry)])
            return
        answer: list[bytes] = []
        status = 0
        body_of_request: list[bytes] = []

        async def heard() -> Message:
            message = await receive()
            body_of_request.append(message.get("body", b""))
            return message

        async def told(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                answer.append(message.get("body", b""))
            await send(message)

        await self.app(scope, heard, told)
        if status == 200:
            told_back = b"".join(answer)
            session = self._session_joined(b"".join(body_of_request), told_back)
            if session is not None:
                self.book.joined(client, session, one_call=session == _event_of(told_back))
                self._schedule_sweep()

    def _session_joined(self, request: bytes, answer: bytes) -> str | None:
        """The session a join filed its event under: the one it named, else the event's own."""
        event_id = _event_of(answer)
        if event_id is None:  # a 200 with no event (a cached result): nothing to count
            return None
        event = self.book.queue.event_ids_to_events.get(event_id)
        if event is not None:
            return event.session_hash
        try:
            named = json.loads(request).get("session_hash") if request else None
        except (ValueError, AttributeError):
            named = None
        return named if isinstance(named, str) and named else event_id

    async def _read(self, scope: Scope, receive: Receive, send: Send, event_id: str | None) -> None:
        session = self._session_read(event_id, scope.get("query_string", b""))
        if session is None:
            await self.app(scope, receive, send)
            return
        # A client that read to the end joins again and opens a new stream at once; the old one
        # may still be closing. Waiting for it briefly keeps the 409 for two live readers.
        for _ in range(SECOND_READER_WAITS):
            if not self.book.is_read(session):
                break
            await asyncio.sleep(0.05)
        refusal = self.book.reading(session)
        if refusal is not None:
            await send_json(send, *refusal)
            return
        if not self.book.is_read(session):  # a session the queue does not hold: Gradio's 404
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.book.done_reading(session)
            self._schedule_sweep()

    def _session_read(self, event_id: str | None, query: bytes) -> str | None:
        """The session a stream reads, found as Gradio's routes find it."""
        if event_id is None:
            named = parse_qs(query.decode("latin-1"), keep_blank_values=True).get("session_hash")
            return named[0] if named else None
        queue = self.book.queue
        event = queue.event_ids_to_events.get(event_id)
        if event is not None:
            return event.session_hash
        pending = list(queue.pending_event_ids_session.items())
        return next((session for session, ids in pending if event_id in ids), event_id)

    def _schedule_sweep(self) -> None:
        """One timer on the loop at a time, so that unread sessions expire with no traffic."""
        delay = self.book.next_expiry_in()
        if self._timer or delay is None:
            return

        def sweep() -> None:
            self._timer = False
            self.book.expire_unread()
            self._schedule_sweep()

        self._timer = True
        asyncio.get_running_loop().call_later(delay + 0.01, sweep)


def _event_of(answer: bytes) -> str | None:
    try:
        event_id = json.loads(answer).get("event_id")
    except (ValueError, AttributeError):
        return None
    return event_id if isinstance(event_id, str) else None
