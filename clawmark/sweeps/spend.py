"""A sweep's committed spend against its cost cap: counted by its coordinator, published for the
pool's cell runs.

The coordinator reads the committed rows once at start and adds each cell it sees commit. A pool
cell run checks the cap again before it starts (a run may wait in the queue while others commit),
and it reads the coordinator's count from `sweeps/<id>/spend.json` while that coordinator holds the
sweep's lease: one small file, where reading every committed row file costs ~1 ms per row and grows
with the sweep. Without a live coordinator's count, the cell run reads the rows. The count may miss
the cells committed since the coordinator's last poll (a second): the runs already in flight are
past any check anyway. A rerun cell counts twice, as it was paid twice; unpriced (NaN) costs add
nothing. An uncapped sweep reads and writes nothing.
"""

from __future__ import annotations

import json
import math
import os
import socket
from dataclasses import dataclass

from clawmark.results import ResultStore
from clawmark.results.layout import check_name
from clawmark.results.lease import SweepLease, is_live, read_note
from clawmark.sweeps.spec import SweepSpec


def spent_usd(store: ResultStore, sweep_id: str) -> float:
    """Cost committed so far in this sweep, from its rows; unpriced rows add nothing here (they are NaN)."""
    frame = store.read(sweep_id, columns=["cost_usd"])
    if frame.empty:
        return 0.0
    total = frame["cost_usd"].sum(skipna=True)
    return 0.0 if math.isnan(total) else float(total)


def spend_path(store: ResultStore, sweep_id: str) -> str:
    return f"{store.root}/sweeps/{check_name('sweep_id', sweep_id)}/spend.json"


@dataclass
class SpendMeter:
    cap_usd: float | None
    spent_usd: float = 0.0
    store: ResultStore | None = None  # where the count is published (the coordinator's meter)
    sweep_id: str = ""

    @classmethod
    def for_sweep(cls, spec: SweepSpec, store: ResultStore) -> "SpendMeter":
        """The coordinator's meter: from the committed rows, published as it counts."""
        if spec.max_cost_usd is None:
            return cls(None)
        meter = cls(spec.max_cost_usd, spent_usd(store, spec.sweep_id), store, spec.sweep_id)
        meter._publish()
        return meter

    @classmethod
    def for_cell(cls, spec: SweepSpec, store: ResultStore) -> "SpendMeter":
        """A cell run's look at the spend: the live coordinator's count, else the committed rows."""
        if spec.max_cost_usd is None:
            return cls(None)
        counted = coordinator_count(store, spec.sweep_id)
        return cls(spec.max_cost_usd, spent_usd(store, spec.sweep_id) if counted is None else counted)

    def add(self, cost_usd: float | None) -> None:
        if cost_usd is not None and math.isfinite(cost_usd):
            self.spent_usd += cost_usd
            self._publish()

    @property
    def exhausted(self) -> bool:
        return self.cap_usd is not None and self.spent_usd >= self.cap_usd

    def _publish(self) -> None:
        if self.store is not None:
            note = {"spent_usd": self.spent_usd, "host": socket.gethostname(), "pid": os.getpid()}
            self.store.publish(spend_path(self.store, self.sweep_id), json.dumps(note).encode("utf-8"))


def coordinator_count(store: ResultStore, sweep_id: str) -> float | None:
    """The spend the sweep's live coordinator counted, or None: no live lease, or no count of its own."""
    sweep_lease = SweepLease(store, sweep_id)
    lease = sweep_lease.holder()
    if lease is None or not is_live(lease, sweep_lease.ttl_s):
        return None
    note = read_note(store, spend_path(store, sweep_id))
    if note is None:
        return None
    try:
        spent = float(note["spent_usd"])
    except (KeyError, TypeError, ValueError):
        return None  # not a count: the rows decide
    same_holder = (note.get("host"), note.get("pid")) == (lease.get("host"), lease.get("pid"))
    return spent if same_holder and math.isfinite(spent) else None
