"""Combine keyword (BM25) and vector (cosine) rankings into one hybrid ranking.

Pure functions over plain mappings, so the scoring is testable without an index. Two methods:

- reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009), the default:

      rrf(d) = 1 / (k + rank_bm25(d)) + 1 / (k + rank_cosine(d))

  where a passage missing from one list gets nothing from it. Ranks ignore the scores' scales,
  so a query whose BM25 scores are all weak cannot push out a clearly better vector match.
- a convex combination of normalised scores:

      convex(d) = alpha * cosine(d) + (1 - alpha) * bm25(d) / max_e bm25(e)

  where bm25 is SQLite's score negated (higher is better) and 0 for passages the keyword search
  did not return. Dividing by the maximum makes the best keyword match 1.0 however poor it is;
  on documentation the project was not tuned on, alpha = 0.5 found fewer answers than vector
  search alone, and weak keyword matches crowding out good vector ones is the likely cause.

`DEFAULT_FUSION` (RRF, k = 5) was chosen on the tuning half of a second, independent corpus
(standard-library docstrings) by `python -m experiments.benchmarks.retrieval tune`, and checked on
the held-out half and on ThinkPath's own corpus; docs/retrieval.md has the figures. A small k
lets the top few ranks of each list dominate (rank 1 is worth 2.5 times rank 10); with k = 60,
the paper's value for TREC runs of 1,000 documents, rank 1 is worth only 15% more than rank 10,
so middling agreement between both lists outweighs a clear first place in one.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

FusionMethod = Literal["rrf", "convex"]
DEFAULT_ALPHA = 0.5
# For merging whole searchers' result lists (retrieval/combine.py), not tuned here.
RRF_K = 60


@dataclass(frozen=True)
class Fusion:
    """How hybrid search fuses its keyword and vector candidates.

    >>> Fusion("rrf", k=1).combine({1: 4.0, 2: 2.0}, {2: 0.9, 3: 0.5})
    {1: 0.5, 2: 0.8333333333333333, 3: 0.3333333333333333}
    >>> Fusion("convex", alpha=0.5).combine({1: 4.0, 2: 2.0}, {2: 0.9, 3: 0.5})
    {1: 0.5, 2: 0.7, 3: 0.25}
    """

    method: FusionMethod = "rrf"
    alpha: float = DEFAULT_ALPHA
    k: float = 5.0

    def __post_init__(self) -> None:
        if self.method not in ("rrf", "convex"):
            raise ValueError(f"fusion method must be 'rrf' or 'convex', got {self.method!r}")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        if not self.k > 0:
            raise ValueError(f"the RRF constant k must be > 0, got {self.k}")

    def combine(
        self, keyword: Mapping[int, float], vector: Mapping[int, float]
    ) -> dict[int, float]:
        """Fused score of every passage found by either search (higher is better)."""
        if self.method == "convex":
            return hybrid_scores(keyword, vector, alpha=self.alpha)
        return reciprocal_rank_fusion(ranking(keyword), ranking(vector), k=self.k)

    def describe(self) -> str:
        """A short label, e.g. 'rrf k=5' or 'convex alpha=0.5'."""
        if self.method == "convex":
            return f"convex alpha={self.alpha:g}"
        return f"rrf k={self.k:g}"


DEFAULT_FUSION = Fusion("rrf", k=5.0)


def hybrid_scores(
    keyword: Mapping[int, float], vector: Mapping[int, float], *, alpha: float = DEFAULT_ALPHA
) -> dict[int, float]:
    """Convex hybrid score of every passage found by either search.

    >>> hybrid_scores({1: 4.0, 2: 2.0}, {2: 0.9, 3: 0.5})
    {1: 0.5, 2: 0.7, 3: 0.25}
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    best = max(keyword.values(), default=0.0)
    scores: dict[int, float] = {}
    for passage_id in dict.fromkeys([*keyword, *vector]):
        keyword_part = keyword.get(passage_id, 0.0) / best if best > 0 else 0.0
        cosine = max(vector.get(passage_id, 0.0), 0.0)
        scores[passage_id] = round(alpha * cosine + (1.0 - alpha) * keyword_part, 12)
    return scores


def ranking(scores: Mapping[int, float]) -> list[int]:
    """Ids best first; ties broken by id, so a ranking never depends on dict order.

    >>> ranking({7: 0.5, 3: 0.9, 4: 0.5})
    [3, 4, 7]
    """
    return [passage_id for passage_id, _ in top(scores, len(scores))]


def reciprocal_rank_fusion(*rankings: Sequence[int], k: float = RRF_K) -> dict[int, float]:
    """Reciprocal-rank fusion: each id scores the sum over rankings of 1 / (k + rank).

    >>> reciprocal_rank_fusion([1, 2], [2, 3], k=1)
    {1: 0.5, 2: 0.8333333333333333, 3: 0.3333333333333333}
    """
    if not k > 0:
        raise ValueError(f"the RRF constant k must be > 0, got {k}")
    scores: dict[int, float] = {}
    for ranked in rankings:
        for rank, passage_id in enumerate(ranked, start=1):
            scores[passage_id] = scores.get(passage_id, 0.0) + 1.0 / (k + rank)
    return scores


def top(scores: Mapping[int, float], limit: int) -> list[tuple[int, float]]:
    """The `limit` best (id, score) pairs, best first; ties broken by id for determinism.

    >>> top({5: 0.2, 3: 0.9, 4: 0.2}, 2)
    [(3, 0.9), (4, 0.2)]
    """
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
