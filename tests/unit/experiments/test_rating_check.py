"""The rating check's arithmetic: an AUC over (right, wrong) path pairs of one task."""

import math

from experiments.rating_check import rating_auc


def test_the_auc_counts_right_over_wrong_pairs_and_ties_half() -> None:
    assert rating_auc([5, 1, 3], [True, False, False]) == (1.0, 2)
    assert rating_auc([1, 5, 3], [True, False, False]) == (0.0, 2)
    assert rating_auc([3, 3, 1], [True, False, True]) == (0.25, 2)  # a tie, then a loss
    auc, pairs = rating_auc([4, 4], [True, True])  # no wrong path: no pair to judge
    assert pairs == 0
    assert math.isnan(auc)
