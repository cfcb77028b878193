"""Sweeps: claw × model × task × seed, planned as cells; the committed rows decide what is left.

The names below load on first use (PEP 562): a submodule such as `worker_code`, the pool's pull
step run in a fresh process for every cell, must not pay for planning's imports (~1 s here)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clawmark.sweeps.plan import Cell, SweepPlan, plan_sweep
    from clawmark.sweeps.spec import SweepSpec, load_spec

_WHERE = {"Cell": "plan", "SweepPlan": "plan", "plan_sweep": "plan", "SweepSpec": "spec", "load_spec": "spec"}
__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
