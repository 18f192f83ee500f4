"""The price on the way into the policies: outcomes replayed net of their decision's cost.

The store's outcome log keeps raw rewards; the arm book hands the learner each batch through
`CostCharger.charge`, which replaces every reward by `CostPrice.net` of it, with the calls and
seconds its decision spent (`Decision.cost`, read from the stored decision). Every process, and
every replay of the log, charges the same outcomes the same way, so replicas still agree; a
changed price changes the checkpoint fingerprint, so the log is replayed under the new price.
"""

import dataclasses
from collections import OrderedDict
from collections.abc import Sequence

from engine.domain.ports import Store
from engine.domain.pricing import CostPrice
from engine.domain.records import LearnedOutcome, cost_of_payload
from engine.errors import UnknownDecisionError

__all__ = ["CostCharger", "cost_of_payload"]

# Decisions' costs kept in memory: a decision's outcomes arrive close together in the log.
CACHED_DECISIONS = 4096


class CostCharger:
    """Charges a price on outcomes before the policies learn them (see the module docstring)."""

    def __init__(self, store: Store, price: CostPrice) -> None:
        self._store = store
        self.price = price
        self._costs: OrderedDict[str, tuple[int, float] | None] = OrderedDict()

    def charge(self, batch: Sequence[LearnedOutcome]) -> list[LearnedOutcome]:
        """The batch with each reward net of its decision's cost (unchanged when the price is
        off, or for a decision whose cost is not stored)."""
        if not self.price.active:
            return list(batch)
        charged = []
        for outcome in batch:
            cost = self._cost_of(outcome.decision_id)
            if cost is None:
                charged.append(outcome)
                continue
            calls, seconds = cost
            reward = self.price.net(outcome.reward, calls=calls, seconds=seconds)
            charged.append(dataclasses.replace(outcome, reward=reward))
        return charged

    def _cost_of(self, decision_id: str) -> tuple[int, float] | None:
        if decision_id in self._costs:
            self._costs.move_to_end(decision_id)
            return self._costs[decision_id]
        try:
            cost = cost_of_payload(self._store.get_decision(decision_id).payload)
        except UnknownDecisionError:  # an outcome always has its decision; charge nothing if not
            cost = None
        self._costs[decision_id] = cost
        if len(self._costs) > CACHED_DECISIONS:
            self._costs.popitem(last=False)
        return cost
