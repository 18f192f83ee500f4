"""Settings come from THINKPATH_* with clear errors; build_engine wires the real pieces."""

import json
from pathlib import Path

import numpy as np
import pytest

from engine import compose
from engine.adapters.llm.caching import CachingLLM
from engine.adapters.llm.scripted import ScriptedLLM
from engine.adapters.memory_searcher import InMemorySearcher
from engine.adapters.store.memory import InMemoryStore
from engine.compose import (
    build_engine,
    build_policy_factory,
    build_scripted_llm,
    build_sql_store,
    build_store,
    build_toolbox,
)
from engine.domain.config import EngineConfig
from engine.domain.records import ChatMessage, LLMRequest, Passage
from engine.errors import ConfigError, StoreError
from engine.settings import DEFAULT_HOME, DEFAULT_POLICY, load_settings
from learning import KeyedPolicy
from learning.base import COLD_PARAMS
from learning.pooled_thompson import PooledThompsonSampling


def test_settings_read_the_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("THINKPATH_HOME", str(tmp_path))
    monkeypatch.setenv("THINKPATH_BUDGET_CALLS", "4")
    monkeypatch.setenv("THINKPATH_TOOLS", "calculator, local_search")
    monkeypatch.setenv("THINKPATH_PATH_POLICY", "lints")
    settings = load_settings()
    assert settings.data_dir == tmp_path
    assert settings.tools == ["calculator", "local_search"]
    assert settings.engine_config().budget.max_calls == 4
    assert settings.path_policy == "lints"


def test_the_cost_price_comes_from_the_environment_and_is_off_by_default(monkeypatch) -> None:
    for name in ("THINKPATH_COST_PER_CALL", "THINKPATH_COST_PER_SECOND"):
        monkeypatch.delenv(name, raising=False)
    assert not load_settings().engine_config().cost_price.active
    monkeypatch.setenv("THINKPATH_COST_PER_CALL", "0.05")
    monkeypatch.setenv("THINKPATH_COST_PER_SECOND", "0.01")
    price = load_settings().engine_config().cost_price
    assert (price.per_call, price.per_second) == (0.05, 0.01)


def test_defaults_are_offline_and_under_the_home(monkeypatch) -> None:
    for name in ("THINKPATH_HOME", "THINKPATH_MODEL", "THINKPATH_WEB_SEARCH"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert settings.model == "local/smollm2"
    assert not settings.web_search
    assert settings.data_dir == Path("~/.thinkpath").expanduser()


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("THINKPATH_BUDGET_CALLS", "0", "THINKPATH_BUDGET_CALLS"),
        ("THINKPATH_TOOL_POLICY", "magic", "unknown policy 'magic'"),
        ("THINKPATH_MODEL", "smollm2", "names no provider"),
        ("THINKPATH_REFEREE_WEIGHT", "abc", "THINKPATH_REFEREE_WEIGHT"),
        ("THINKPATH_NAMESPACE", "a b", "THINKPATH_NAMESPACE"),
        ("THINKPATH_COST_PER_CALL", "-0.1", "THINKPATH_COST_PER_CALL"),
        ("THINKPATH_COST_PER_SECOND", "2", "THINKPATH_COST_PER_SECOND"),
    ],
)
def test_a_bad_setting_is_a_clear_error(monkeypatch, variable, value, message) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_an_unavailable_tool_is_refused_at_start_up() -> None:
    settings = load_settings(tools=["calculator", "web_search"], web_search=False)
    with pytest.raises(ConfigError, match="web_search needs THINKPATH_WEB_SEARCH"):
        build_toolbox(settings, InMemorySearcher())


def test_policies_are_contextual_either_way() -> None:
    keyed = build_policy_factory(load_settings(path_policy="thompson"))("path", ["a", "b"], 3)
    linear = build_policy_factory(load_settings(path_policy="lints"))("path", ["a", "b"], 3)
    assert isinstance(keyed, KeyedPolicy)
    assert keyed.is_contextual
    assert linear.is_contextual
    assert not isinstance(linear, KeyedPolicy)


def test_the_default_path_and_tool_policies_pool_what_the_families_taught(monkeypatch) -> None:
    """The shipped default (`engine.settings.DEFAULT_POLICY`, the reason beside it): the path and
    tool roles are one `pooled_thompson` over the kinds' anchors, each kind a context whose
    prior comes from the kinds most like it; the seed role stays keyed Thompson."""
    for name in ("THINKPATH_PATH_POLICY", "THINKPATH_TOOL_POLICY"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings(policy_seed=3)
    assert (settings.path_policy, settings.tool_policy) == (DEFAULT_POLICY, DEFAULT_POLICY)
    assert DEFAULT_POLICY == "pooled_thompson"
    factory = build_policy_factory(settings)
    dim = 3
    anchors = np.eye(dim)  # three unrelated kinds of query
    seed_role = factory("seed", ["seed", "no_seed"], dim)
    assert isinstance(seed_role, KeyedPolicy)
    assert seed_role.name == "thompson"
    for role in ("path", "tool"):
        policy = factory(role, ["a", "b"], dim)
        assert isinstance(policy, PooledThompsonSampling)  # built as is, not keyed
        assert policy.params["cold_pulls"] == settings.cold_pulls
        for anchor in anchors[:2]:  # in both kinds seen so far, "b" is the better arm
            for _ in range(5):
                policy.update("a", 0.0, context=anchor)
                policy.update("b", 1.0, context=anchor)
        new = anchors[2]  # a kind never seen
        assert policy.prob_best(context=new)["b"] > 0.8
        assert not policy.is_cold("b", context=new)


def test_the_memory_store_is_a_setting() -> None:
    assert isinstance(build_store(load_settings(store_url="memory")), InMemoryStore)


def script(request: LLMRequest) -> str:
    if request.purpose == "rate":
        assert request.json_schema is not None
        count = request.json_schema["properties"]["scores"]["minItems"]
        return json.dumps({"scores": [3] * count, "tool": "calculator"})
    if request.purpose == "referee":
        return json.dumps({"score": 4, "reason": "fine"})
    return "Seventeen times three is 51.\nAnswer: 51"


@pytest.mark.parametrize("policy", ["pooled_thompson", "thompson", "lints", "glr_thompson"])
def test_build_engine_wires_templates_features_tools_and_policies(policy: str) -> None:
    settings = load_settings(store_url="memory", path_policy=policy, policy_seed=3)
    searcher = InMemorySearcher([Passage("Multiplication repeats addition.", "m.md")])
    engine = build_engine(settings, llm=ScriptedLLM(script), searcher=searcher)
    decision = engine.decide("What is 17 * 3?")
    assert decision.kind is not None
    assert decision.kind.new  # the first kind of query
    assert len(decision.candidates) >= 10  # the built-in templates
    assert decision.tool.arm_id == "calculator+direct"  # the tool that reads it, directly
    assert decision.tool_run is not None
    assert decision.tool_run.output == "17 * 3 = 51"
    assert decision.answer == "Answer: 51"  # read from the whole question: no answer call
    # no checker, and the referee was never measured here: its prior weight 0 asks it nothing
    assert decision.step("referee").reason == "skipped"
    assert decision.outcomes == []


@pytest.mark.parametrize(("opt_in", "judged"), [({}, False), ({"referee_weight": 0.5}, True)])
def test_the_referee_judges_an_unmeasured_kind_of_query_only_where_a_user_opted_in(
    monkeypatch, opt_in: dict[str, float], judged: bool
) -> None:
    monkeypatch.delenv("THINKPATH_REFEREE_WEIGHT", raising=False)
    settings = load_settings(store_url="memory", policy_seed=3, **opt_in)
    llm = ScriptedLLM(script)
    decision = build_engine(settings, llm=llm).decide("What is 17 * 3?")
    assert ("referee" in [request.purpose for request in llm.requests]) is judged
    expected = [("referee", 1.0, 0.5)] if judged else []
    assert [(o.source, o.reward, o.weight) for o in decision.outcomes] == expected


def test_a_user_opts_in_to_the_referee_through_the_environment(monkeypatch) -> None:
    monkeypatch.delenv("THINKPATH_REFEREE_WEIGHT", raising=False)
    assert load_settings().engine_config().weight_for("referee") == 0.0  # the shipped prior
    monkeypatch.setenv("THINKPATH_REFEREE_WEIGHT", "0.4")
    assert load_settings().engine_config().weight_for("referee") == 0.4


class _FalsyLLM(ScriptedLLM):
    """A model that is falsy, as an empty sized collaborator is."""

    def __bool__(self) -> bool:
        return False


def _no_model_is_built(settings: object, **_: object) -> None:
    raise AssertionError("build_engine built a model although one was passed in")


def test_an_empty_cache_passed_in_is_the_one_that_decides(monkeypatch, tmp_path: Path) -> None:
    """Regression: `llm or build_llm(...)` swapped an empty CachingLLM (falsy through its
    length) for a fresh model, and the engine bypassed the cache."""
    monkeypatch.setattr(compose, "build_llm", _no_model_is_built)
    inner = ScriptedLLM(script)
    cached = CachingLLM(inner, tmp_path, model="scripted/test")
    assert len(cached) == 0
    engine = build_engine(
        load_settings(store_url="memory"),
        llm=cached,
        store=InMemoryStore(),
        searcher=InMemorySearcher(),
    )
    engine.decide("Who wrote Hamlet?")  # no tool reads it: the model answers
    assert cached.misses > 0
    assert len(cached.calls) == len(inner.requests) > 0


def test_a_falsy_collaborator_passed_in_is_used_as_is(monkeypatch) -> None:
    monkeypatch.setattr(compose, "build_llm", _no_model_is_built)
    falsy = _FalsyLLM(script)
    engine = build_engine(
        load_settings(store_url="memory"),
        llm=falsy,
        store=InMemoryStore(),
        searcher=InMemorySearcher(),
    )
    engine.decide("Who wrote Hamlet?")  # no tool reads it: the model answers
    assert falsy.requests


def test_each_default_is_read_from_its_one_source(monkeypatch) -> None:
    for name in ("HOME", "COLD_PULLS", "COLD_WIDTH", "MAX_TEMPLATES", "CHECKPOINT_EVERY"):
        monkeypatch.delenv(f"THINKPATH_{name}", raising=False)
    settings, engine = load_settings(), EngineConfig()
    assert settings.home == DEFAULT_HOME
    assert settings.cold_pulls == COLD_PARAMS["cold_pulls"].default
    assert settings.cold_width == COLD_PARAMS["cold_width"].default == 0.25
    assert settings.max_templates == engine.max_templates
    assert settings.checkpoint_every == engine.checkpoint_every


def test_the_store_commands_store_comes_from_the_settings(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no database to open"):
        build_sql_store(load_settings(store_url="memory"))
    with pytest.raises(StoreError, match="no store at"):
        build_sql_store(load_settings(home=tmp_path / "absent", store_url=""), create=False)
    assert not (tmp_path / "absent").exists()  # refusing made nothing


def test_the_scripted_stand_in_refuses_a_delay_out_of_range() -> None:
    asked = LLMRequest(messages=(ChatMessage("user", "What is 2 + 3?"),))
    assert build_scripted_llm(0.0).complete(asked).text.endswith("Answer: 5")
    with pytest.raises(ConfigError, match="delay must be 0 to 10 s"):
        build_scripted_llm(11.0)
