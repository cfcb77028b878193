"""Claws: the adapter protocol (:mod:`clawmark.claws.base`) and one module per claw."""

from clawmark.claws.base import Budgets, ClawAdapter, ClawContext, ClawError, TurnResult, Usage
from clawmark.claws.registry import claw_names, get_claw

__all__ = [
    "Budgets",
    "ClawAdapter",
    "ClawContext",
    "ClawError",
    "TurnResult",
    "Usage",
    "claw_names",
    "get_claw",
]
