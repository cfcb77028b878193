"""Sweeps: claw × model × task × seed, planned as cells; the committed rows decide what is left."""

from __future__ import annotations

from clawmark.sweeps.plan import Cell, SweepPlan, plan_sweep
from clawmark.sweeps.spec import SweepSpec, load_spec

__all__ = ["Cell", "SweepPlan", "SweepSpec", "load_spec", "plan_sweep"]
