"""Claw registry: name → adapter class. Claw modules are imported lazily so that loading the
registry never pulls in a claw's dependencies."""

from __future__ import annotations

import importlib
from typing import Any

from clawmark.claws.base import ClawAdapter, UnknownClaw

_CLAWS: dict[str, str] = {
    "oracle": "clawmark.claws.simple:OracleClaw",
    "nop": "clawmark.claws.simple:NopClaw",
    "bare": "clawmark.claws.bare:BareClaw",
    "reference": "clawmark.claws.reference:ReferenceClaw",
    "mini-swe-agent": "clawmark.claws.mini_swe_agent:MiniSweAgentClaw",
    "openclaw": "clawmark.claws.openclaw:OpenClawClaw",
    "edict": "clawmark.claws.edict:EdictClaw",
    "edict-3role": "clawmark.claws.edict:Edict3RoleClaw",
    "zeroclaw": "clawmark.claws.zeroclaw:ZeroClawClaw",
    "nanobot": "clawmark.claws.nanobot:NanobotClaw",
    "hermes": "clawmark.claws.hermes:HermesClaw",
    "genericagent": "clawmark.claws.genericagent:GenericAgentClaw",
}


def claw_names() -> list[str]:
    return sorted(_CLAWS)


def get_claw(name: str, config: dict[str, Any] | None = None) -> ClawAdapter:
    """A fresh adapter instance for ``name`` with optional settings overrides."""
    if name not in _CLAWS:
        raise UnknownClaw(name, list(_CLAWS))
    module_name, class_name = _CLAWS[name].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(config)
