"""The composition root: `build_engine(settings)` is the one place that builds clients.

Nothing happens on import. Each collaborator has its own `build_*` function, so a service, an
experiment or a test can replace one piece (say, the store) and keep the rest:

    engine = build_engine(load_settings())
    engine = build_engine(settings, llm=ScriptedLLM(script), store=InMemoryStore())
"""

from collections.abc import Callable, Sequence

import numpy as np

from engine.adapters.llm.connect import (
    connect_chat,  # cheap: litellm itself loads on the first call
)
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.adapters.store.memory import InMemoryStore
from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.catalog import standard_tools
from engine.adapters.tools.program import ProgramTool
from engine.domain import features
from engine.domain.ports import LLM, Searcher, Store, ToolBox, Tracker
from engine.domain.records import TemplateLike
from engine.errors import ConfigError
from engine.orchestration.facade import Engine
from engine.orchestration.learner import PolicyFactory
from engine.settings import Settings, load_settings
from learning import PolicyLike, make_policy
from templates import load_templates

# The SQL store (SQLAlchemy) and the retrieval backends (SQLite index, ONNX embedder, ddgs) are
# imported only when chosen: an engine on the in-memory store and a given searcher starts fast.

__all__ = [
    "build_engine",
    "build_llm",
    "build_policy_factory",
    "build_searcher",
    "build_store",
    "build_toolbox",
    "build_tracker",
]


def build_llm(settings: Settings) -> LLM:
    """The model named by `THINKPATH_MODEL` through litellm; `local/...` runs in-process."""
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    return connect_chat(
        settings.model,
        api_base=settings.api_base,
        api_key=api_key,
        local=LocalModelSettings(threads=settings.llm_threads, n_ctx=settings.llm_context),
    )


def build_store(settings: Settings) -> Store:
    """`THINKPATH_STORE_URL`: "memory", a SQLAlchemy URL, or empty for SQLite under the home."""
    if settings.store_url == "memory":
        return InMemoryStore()
    from engine.adapters.store.location import default_store_url  # noqa: PLC0415 - see the module top
    from engine.adapters.store.sql import SqlStore  # noqa: PLC0415

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqlStore(settings.store_url or default_store_url(settings.data_dir))


def build_searcher(settings: Settings) -> Searcher:
    """The local index (embedded corpus plus `THINKPATH_INDEX_FOLDERS`), and the web if enabled."""
    from retrieval.factory import build_default_searcher  # noqa: PLC0415 - see the module top

    return build_default_searcher(
        settings.data_dir, web=settings.web_search, index_folders=settings.index_folders
    )


def build_tracker(settings: Settings) -> Tracker:
    """MLflow logging of live decisions and outcomes, in the store under the data directory."""
    from engine.adapters.tracking import (  # noqa: PLC0415 - mlflow is a slow import
        MLflowTracker,
        TrackingStore,
        default_tracking_uri,
    )

    home = settings.data_dir
    return MLflowTracker(TrackingStore(default_tracking_uri(home), home / "mlartifacts"))


def build_toolbox(settings: Settings, searcher: Searcher) -> ToolBox:
    """The tools on the allow-list `THINKPATH_TOOLS`."""
    web = None
    if settings.web_search:
        from retrieval.web import WebSearcher  # noqa: PLC0415 - see the module top

        web = WebSearcher()
    tools = standard_tools(local_searcher=searcher, web_searcher=web)
    known = {tool.name for tool in tools} | {"none"}
    unknown = sorted(set(settings.tools) - known)
    if unknown:
        raise ConfigError(
            f"invalid setting THINKPATH_TOOLS: {unknown} are not available; "
            f"available: {sorted(known)} (web_search needs THINKPATH_WEB_SEARCH=true)"
        )
    return ToolRegistry(tools, allowed=settings.tools)


def build_policy_factory(settings: Settings) -> PolicyFactory:
    """Policies by name, each given the query features' size: a non-contextual policy then
    learns per query family (`learning.KeyedPolicy`), a contextual one from the features."""
    params = {"cold_pulls": settings.cold_pulls, "cold_width": settings.cold_width}

    def build(role: str, arms: list[str], context_dim: int) -> PolicyLike:
        name = settings.path_policy if role == "path" else settings.tool_policy
        return make_policy(name, arms, seed=settings.policy_seed, context_dim=context_dim, **params)

    return build


def build_engine(
    settings: Settings | None = None,
    *,
    llm: LLM | None = None,
    store: Store | None = None,
    searcher: Searcher | None = None,
    toolbox: ToolBox | None = None,
    tracker: Tracker | None = None,
    featurizer: Callable[[str], np.ndarray] | None = None,
    templates: Sequence[TemplateLike] | None = None,
) -> Engine:
    """Build the engine from settings (read from the environment when None).

    Any collaborator passed in is used as is; the rest are built from the settings. `templates`
    replaces the loaded ones (an evaluation that studies a chosen set of paths).
    """
    settings = settings or load_settings()
    searcher = searcher or build_searcher(settings)
    return Engine(
        llm=llm or build_llm(settings),
        searcher=searcher,
        store=store or build_store(settings),
        templates=list(templates)
        if templates is not None
        else load_templates(settings.templates_dirs),
        featurizer=featurizer or features.query_features,
        family_of=features.family,
        label_context=features.describe_context,
        policy_factory=build_policy_factory(settings),
        toolbox=toolbox or build_toolbox(settings, searcher),
        # The program arm (a path procedure) runs programs in the sandbox even while "program"
        # is off the tool policy's allow-list: choosing it as a path is the path policy's call.
        program_toolbox=ToolRegistry([ProgramTool()]),
        config=settings.engine_config(),
        tracker=tracker,
    )
