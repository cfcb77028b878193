"""Cost caps. An attempt's Budget may have a parent (the sweep's); a call is refused with
BudgetExceeded before it is made once any cap in the chain is reached."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from pathlib import Path

from clawmark.gateway.errors import BudgetExceeded
from clawmark.gateway.ledger import read_ledger


class Budget:
    """A running cost total with an optional cap (dollars). Thread-safe; unpriced (NaN) calls
    cannot be counted and are left out (the price table warns about them)."""

    def __init__(self, cap_usd: float | None, *, name: str = "attempt", parent: "Budget | None" = None,
                 spent_usd: float = 0.0):
        self.cap_usd = cap_usd
        self.name = name
        self.parent = parent
        self.spent_usd = spent_usd
        self._lock = threading.Lock()

    @classmethod
    def resumed(cls, cap_usd: float | None, ledger_paths: Iterable[Path], *, name: str = "sweep") -> "Budget":
        """A budget that starts from what earlier runs already spent (their ledgers), so a resumed
        sweep cannot spend its cap twice. Unpriced calls cannot count, as in `charge`."""
        spent = sum(r.cost_usd for path in ledger_paths for r in read_ledger(path) if not math.isnan(r.cost_usd))
        return cls(cap_usd, name=name, spent_usd=spent)

    def check(self) -> None:
        budget: Budget | None = self
        while budget is not None:
            if budget.cap_usd is not None and budget.spent_usd >= budget.cap_usd:
                raise BudgetExceeded(
                    f"{budget.name} budget of ${budget.cap_usd:.4f} reached (spent ${budget.spent_usd:.4f})")
            budget = budget.parent

    def charge(self, cost_usd: float) -> None:
        if math.isnan(cost_usd):
            return
        budget: Budget | None = self
        while budget is not None:
            with budget._lock:
                budget.spent_usd += cost_usd
            budget = budget.parent
