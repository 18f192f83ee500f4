"""Stages 1-2 together: search, check, rebuild once or flag, then write the brief."""

from engine.domain.config import EngineConfig
from engine.domain.models import Seed, SeedSource
from engine.domain.ports import Searcher
from engine.domain.records import Passage
from engine.errors import RetrievalError
from engine.orchestration.run_state import RunState, run_stage
from engine.stages import seed, seed_check
from retrieval.gather import gather
from retrieval.query import content_words, keyword_query


class Seeder:
    """Builds the thinking seed of a decision; faults are recorded, never raised."""

    def __init__(self, searcher: Searcher, config: EngineConfig) -> None:
        self._searcher = searcher
        self._config = config

    def build(self, run: RunState) -> Seed:
        """Search; a weak result is rebuilt once with a keyword query, then flagged.

        A flagged seed keeps its sources for the record but has no brief, and the answer is told
        there is no background: a weak seed is never used silently.
        """
        limit = self._config.passages
        flags: dict[str, list[str]] = {}  # source -> what the sanitiser found in it
        passages = self._search(run, run.query, limit, flags)
        started = run.trace.start()
        verdict = seed_check.check_passages(run.query, passages)
        rebuilt = False
        if not verdict.ok and content_words(run.query):
            rebuilt = True
            # The rebuild digs deeper on the keywords alone: twice the passages to choose from.
            keywords = keyword_query(run.query)
            passages = self._search(run, keywords, 2 * limit, flags)
            verdict = seed_check.check_passages(run.query, passages)
        sources = [
            SeedSource(
                source=p.source,
                title=p.title,
                score=p.score,
                relevance=round(verdict.relevance.get(p.source, 0.0), 4),
                flags=flags.get(p.source, []),
            )
            for p in passages
        ]
        check_out = {"ok": verdict.ok, "score": verdict.score, "rebuilt": rebuilt}
        if not verdict.ok:
            run.trace.add(
                "seed_check",
                "weak_seed",
                started,
                outputs=check_out,
                error="; ".join(verdict.reasons),
            )
            return Seed(
                sources=sources,
                relevance=verdict.score,
                weak=True,
                rebuilt=rebuilt,
                check_reasons=verdict.reasons,
            )
        run.trace.add("seed_check", "done", started, outputs=check_out)
        return self._write_brief(run, verdict, sources, rebuilt)

    def _search(
        self, run: RunState, query: str, limit: int, flags: dict[str, list[str]]
    ) -> list[Passage]:
        """Gather passages for `query` (several searches merged, sanitised, instruction-like
        text flagged into `flags`); a failure is a traced fault and no passages."""
        started = run.trace.start()
        found = run_stage(
            run,
            "search",
            lambda: gather(self._searcher, query, limit=limit),
            started=started,
            faults=RetrievalError,
            inputs={"query": query},
        )
        if found is None:
            return []
        for passage in found.passages:
            flags[passage.source] = list(found.flags.get(passage.source, ()))
        run.trace.add(
            "search",
            "done",
            started,
            inputs={"query": query, "searches": list(found.queries)},
            outputs={
                "sources": [p.source for p in found.passages],
                "flags": {k: list(v) for k, v in found.flags.items()},
                "failures": list(found.failures),
            },
        )
        return list(found.passages)

    def _write_brief(
        self,
        run: RunState,
        verdict: seed_check.SeedVerdict,
        sources: list[SeedSource],
        rebuilt: bool,
    ) -> Seed:
        started = run.trace.start()
        partial = Seed(sources=sources, relevance=verdict.score, rebuilt=rebuilt)
        brief = run_stage(
            run,
            "seed",
            lambda: seed.write_brief(
                run.meter,
                run.query,
                verdict.relevant,
                max_tokens=self._config.seed_max_tokens,
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            optional="no call left for the seed besides the answer",
        )
        if brief is None:
            return partial
        written = brief
        problems = seed_check.degeneracy(run.query, brief)
        brief, dropped = seed_check.inform_only(run.query, brief, verdict.relevant)
        problems += seed_check.check_brief(run.query, brief, verdict.relevant)
        outputs = {"brief": brief, "written": written, "dropped": dropped}
        if problems:
            run.trace.add("seed", "weak_seed", started, outputs=outputs, error="; ".join(problems))
            return partial.model_copy(update={"weak": True, "check_reasons": problems})
        run.trace.add("seed", "done", started, outputs=outputs)
        return partial.model_copy(update={"brief": brief})
