"""One renderer: replay and the engine send byte-identical answer messages for the same path."""

from engine.adapters.llm.scripted import ScriptedLLM, canned_script
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import build_engine
from engine.domain.records import LLMRequest
from engine.settings import load_settings
from experiments.replay import build_outcome_matrix, check_task
from experiments.tasks import Task, TaskSuite
from templates import load_templates


def _answer_requests(llm: ScriptedLLM) -> list[LLMRequest]:
    return [request for request in llm.requests if request.purpose == "answer"]


def test_replay_sends_what_the_engine_sends(tmp_path) -> None:
    query = "What is the first letter of the word 'meadow'?"
    engine_llm = ScriptedLLM(canned_script)
    engine = build_engine(
        load_settings(home=tmp_path, store_url="memory", tools=["none"], model="scripted/x"),
        llm=engine_llm,
        store=InMemoryStore(),
        searcher=InMemorySearcher(),  # no passages: no seed brief, as in replay
    )
    seen = set()
    for _ in range(8):  # several decisions, so that several paths are compared
        decision = engine.decide(query)
        assert decision.seed.brief is None
        assert decision.tool_run is None
        sent = _answer_requests(engine_llm)[-1].messages
        chosen = [t for t in load_templates() if t.id == decision.path.arm_id]
        if not chosen:
            continue  # a detour arm: replay only knows templates
        other = next(t for t in load_templates() if t.id != chosen[0].id)
        replay_llm = ScriptedLLM(canned_script)
        suite = TaskSuite(seed=0, tasks=(Task("t", "first_letter", query, "m", "exact"),))
        build_outcome_matrix(replay_llm, "x", [chosen[0], other], suite, check_task)
        assert _answer_requests(replay_llm)[0].messages == sent  # byte-identical
        seen.add(decision.path.arm_id)
    assert seen  # at least one path compared (the policy explores several)


def test_replay_runs_a_procedure_arm_as_the_engine_would() -> None:
    by_id = {t.id: t for t in load_templates()}
    llm = ScriptedLLM(lambda request: "Answer: m")
    suite = TaskSuite(
        seed=0, tasks=(Task("t", "first_letter", "First letter of 'meadow'?", "m", "exact"),)
    )
    matrix = build_outcome_matrix(
        llm, "x", [by_id["self_consistency"], by_id["bare_question"]], suite, check_task
    )
    answers = _answer_requests(llm)
    assert [r.temperature > 0 for r in answers] == [True, True, True, False]
    assert answers[-1].messages[0].role == "user"  # the bare arm: the question alone
    assert matrix.rewards.tolist() == [[1.0], [1.0]]
    assert matrix.tokens.tolist() == [[6], [2]]  # three samples' tokens, summed
