"""Combine keyword (BM25) and vector (cosine) rankings into one hybrid ranking.

Pure functions over plain mappings, so the scoring is testable without an index.

Hybrid score of a passage d (a convex combination of normalised scores):

    hybrid(d) = alpha * cosine(d) + (1 - alpha) * bm25(d) / max_e bm25(e)

where bm25 is SQLite's score negated (higher is better) and taken 0 for passages that the keyword
search did not return. Cosine of unit vectors is already on a fixed scale, while BM25 is not
(it grows with query length and term rarity), which is why only BM25 is divided by its maximum.
The default alpha = 0.5 was chosen on the labelled set in `experiments/benchmarks/`
(see docs/retrieval.md); reciprocal-rank fusion was measured beside it.
"""

from collections.abc import Mapping

DEFAULT_ALPHA = 0.5
RRF_K = 60


def hybrid_scores(
    keyword: Mapping[int, float], vector: Mapping[int, float], *, alpha: float = DEFAULT_ALPHA
) -> dict[int, float]:
    """Hybrid score of every passage found by either search.

    >>> hybrid_scores({1: 4.0, 2: 2.0}, {2: 0.9, 3: 0.5})
    {1: 0.5, 2: 0.7, 3: 0.25}
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    top = max(keyword.values(), default=0.0)
    scores: dict[int, float] = {}
    for passage_id in dict.fromkeys([*keyword, *vector]):
        keyword_part = keyword.get(passage_id, 0.0) / top if top > 0 else 0.0
        cosine = max(vector.get(passage_id, 0.0), 0.0)
        scores[passage_id] = round(alpha * cosine + (1.0 - alpha) * keyword_part, 12)
    return scores


def reciprocal_rank_fusion(*rankings: list[int], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal-rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): sum of 1 / (k + rank).

    >>> reciprocal_rank_fusion([1, 2], [2, 3], k=1)
    {1: 0.5, 2: 0.8333333333333333, 3: 0.3333333333333333}
    """
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, passage_id in enumerate(ranking, start=1):
            scores[passage_id] = scores.get(passage_id, 0.0) + 1.0 / (k + rank)
    return scores


def top(scores: Mapping[int, float], limit: int) -> list[tuple[int, float]]:
    """The `limit` best (id, score) pairs, best first; ties broken by id for determinism.

    >>> top({5: 0.2, 3: 0.9, 4: 0.2}, 2)
    [(3, 0.9), (4, 0.2)]
    """
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
