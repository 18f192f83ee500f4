"""Stages 1-2 together: search, check, rebuild once or flag, then write the brief."""

from engine.domain.config import EngineConfig
from engine.domain.models import Seed, SeedSource
from engine.domain.ports import Searcher
from engine.domain.records import Passage
from engine.domain.trace import Steps, fault, report, start
from engine.errors import RetrievalError
from engine.orchestration.run_state import RunState, run_stage
from engine.stages import seed, seed_check
from retrieval.gather import gather
from retrieval.query import content_words, keyword_query

Flags = dict[str, list[str]]  # source -> what the sanitiser found in it


class Seeder:
    """Builds the thinking seed of a decision; faults are recorded, never raised."""

    def __init__(self, searcher: Searcher, config: EngineConfig) -> None:
        self._searcher = searcher
        self._config = config

    def build(self, run: RunState) -> Steps[Seed]:
        """Search; a weak result is rebuilt once with a keyword query, then flagged.

        A flagged seed keeps its sources for the record but has no brief, and the answer is told
        there is no background: a weak seed is never used silently. Searches and checks call no
        model, so the brief is written with the `run` given (what the decision spent before).
        """
        limit = self._config.passages
        passages, flags = yield from self._search(run.query, limit)
        started = start()
        verdict = seed_check.check_passages(run.query, passages)
        rebuilt = False
        if not verdict.ok and content_words(run.query):
            rebuilt = True
            # The rebuild digs deeper on the keywords alone: twice the passages to choose from.
            keywords = keyword_query(run.query)
            passages, more_flags = yield from self._search(keywords, 2 * limit)
            flags = {**flags, **more_flags}
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
            yield report(
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
        yield report("seed_check", "done", started, outputs=check_out)
        return (yield from self._write_brief(run, verdict, sources, rebuilt))

    def _search(self, query: str, limit: int) -> Steps[tuple[list[Passage], Flags]]:
        """Passages for `query` (several searches merged, sanitised) and, per source, the
        instruction-like text the sanitiser flagged; a failure is a traced fault and nothing."""
        started = start()
        try:
            found = gather(self._searcher, query, limit=limit)
        except RetrievalError as error:
            yield fault("search", error, started, inputs={"query": query})
            return [], {}
        flags = {p.source: list(found.flags.get(p.source, ())) for p in found.passages}
        yield report(
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
        return list(found.passages), flags

    def _write_brief(
        self,
        run: RunState,
        verdict: seed_check.SeedVerdict,
        sources: list[SeedSource],
        rebuilt: bool,
    ) -> Steps[Seed]:
        started = start()
        partial = Seed(sources=sources, relevance=verdict.score, rebuilt=rebuilt)
        attempt = yield from run_stage(
            run,
            "seed",
            lambda llm: seed.write_brief(
                llm,
                run.query,
                verdict.relevant,
                max_tokens=self._config.seed_max_tokens,
                timeout_s=self._config.llm_timeout_s,
            ),
            started=started,
            optional="no call left for the seed besides the answer",
        )
        brief, cost = attempt.value, attempt.cost
        if brief is None:
            return partial
        written = brief
        problems = seed_check.degeneracy(run.query, brief)
        brief, dropped = seed_check.inform_only(run.query, brief, verdict.relevant)
        problems += seed_check.check_brief(run.query, brief, verdict.relevant)
        outputs = {"brief": brief, "written": written, "dropped": dropped}
        if problems:
            yield report(
                "seed", "weak_seed", started, cost=cost, outputs=outputs, error="; ".join(problems)
            )
            return partial.model_copy(update={"weak": True, "check_reasons": problems})
        yield report("seed", "done", started, cost=cost, outputs=outputs)
        return partial.model_copy(update={"brief": brief})
