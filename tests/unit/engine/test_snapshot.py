"""`Engine.snapshot()`: what was learned, per arm and per kind of query, as one JSON document."""

import json

QUERY = "What is the sum 3 + 4?"


def test_the_snapshot_is_json_with_every_arm_and_each_kind_learned_from(world) -> None:
    engine = world.engine()
    for _ in range(4):
        engine.decide(QUERY, checker=world.checker_for(QUERY))
    snapshot = json.loads(json.dumps(engine.snapshot()))
    assert snapshot["last_seq"] == len(engine.outcome_log())
    assert len(snapshot["kinds"]) == 1  # one kind of query so far, with its size and example
    (listed,) = snapshot["kinds"]
    assert (listed["decisions"], listed["example"], listed["origin"]) == (4, QUERY, "discovered")
    kind = listed["name"] or listed["kind"]
    paths = {arm["arm_id"]: arm for arm in snapshot["roles"]["path"]["arms"]}
    assert set(paths) == {row.arm_id for row in engine.arms() if row.role == "path"}
    assert sum(arm["outcomes"] for arm in paths.values()) == 4
    for arm in paths.values():
        assert arm["by_kind"][kind]["state"] in ("cold", "confident")
    assert abs(sum(arm["by_kind"][kind]["prob_best"] for arm in paths.values()) - 1.0) < 1e-3
    assert {"none"} <= {arm["arm_id"] for arm in snapshot["roles"]["tool"]["arms"]}
