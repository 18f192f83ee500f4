"""The evidence ledger keeps, per decision, only the sources that can still be in force, and
says what changed exactly as it would with every source kept."""

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.domain.evidence import Evidence, in_force, source_key, split_source_key
from engine.domain.records import LearnedOutcome
from engine.orchestration.ledger import EvidenceLedger

ROLES = ("path", "tool", "seed")
SOURCES = ("tool", "checker", "referee", "user", "user:a", "user:b", "user:c")


def outcome(seq: int, decision_id: str, source: str, reward: float) -> LearnedOutcome:
    return LearnedOutcome(seq, decision_id, "default", {}, None, source, reward, 1.0)


def log_of(posts: Sequence[tuple[int, int, float]]) -> list[LearnedOutcome]:
    """Posts of (decision, source, reward) as the store keeps them: a source's second post is
    its correction, under the next revision's key."""
    revisions: dict[tuple[str, str], int] = {}
    log = []
    for seq, (decision, source_index, reward) in enumerate(posts, start=1):
        decision_id, source = f"d{decision}", SOURCES[source_index]
        revision = revisions.get((decision_id, source), -1) + 1
        revisions[(decision_id, source)] = revision
        log.append(outcome(seq, decision_id, source_key(source, revision), reward))
    return log


Moved = dict[str, tuple[Evidence | None, Evidence | None]]


def expected(log: Sequence[LearnedOutcome]) -> list[Moved]:
    """What each outcome changed, from every score kept (the rule of `in_force`, unabridged)."""
    standing: dict[str, dict[str, Evidence]] = {}
    changes = []
    for item in log:
        before = standing.setdefault(item.decision_id, {})
        source, _revision = split_source_key(item.source)
        kept = before.get(source)
        first = kept.first_seq if kept is not None else item.seq
        after = {**before, source: Evidence(source, item.reward, item.weight, first)}
        changes.append(
            {
                role: (in_force(before, role), in_force(after, role))
                for role in ROLES
                if in_force(before, role) != in_force(after, role)
            }
        )
        standing[item.decision_id] = after
    return changes


posts = st.lists(
    st.tuples(
        st.integers(0, 3), st.integers(0, len(SOURCES) - 1), st.sampled_from([0.0, 0.5, 1.0])
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(posts, st.integers(1, 3))
def test_what_changed_is_what_every_score_kept_would_say(
    posted: list[tuple[int, int, float]], remembered: int
) -> None:
    """Remembering few decisions, the ledger folds the others from the log (as after a
    restart), and drops sources that can no longer be in force: neither changes an answer."""
    log = log_of(posted)
    ledger = EvidenceLedger(
        lambda ids: [o for o in log if o.decision_id in set(ids)], remembered=remembered
    )
    said: list[Moved] = []
    for item in log:
        change = ledger.record(item, ROLES)
        said.append(dict(change.roles))
    assert said == expected(log)


def test_sixteen_users_leave_the_first_of_them_and_the_engine_s_sources() -> None:
    log = [outcome(1, "d1", "checker", 1.0), outcome(2, "d1", "referee", 0.0)]
    log += [outcome(3 + n, "d1", f"user:u{n}", 0.5) for n in range(16)]
    late = outcome(40, "d1", "user:u5#1", 0.0)  # a correction of a user who is not in force
    ledger = EvidenceLedger(lambda ids: log if "d1" in ids else [])
    change = ledger.record(late, ROLES)
    assert change.roles == {}  # the checker stands for every role
    assert change.audit == ((0.0, 1.0), (0.0, 1.0))
    kept = ledger._scores["d1"]
    assert sorted(kept) == ["checker", "referee", "user:u0"]
