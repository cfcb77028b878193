"""Marker bases every room's failures subclass, so control flow decides by type, never by name.

- `Infra`: a failure of the world under the attempt (engine, image, container, git step, claw
  set-up): the row is an infrastructure error, and running the failed stage again may help.
- `Permanent`: running the failed stage again cannot help (a timeout, a refusal, what the
  workload itself caused, a model or provider failure the gateway already backed off on).

They combine: `class ExecTimeout(RuntimeFailure, Permanent)` is an infra row that is not retried.
This module sits on the ground floor and imports nothing of clawmark.
"""

from __future__ import annotations


class Infra(Exception):
    """Base of the infrastructure failures of every room (runtime, swe, claws)."""


class Permanent(Exception):
    """Marker: the failed stage is not run again."""
