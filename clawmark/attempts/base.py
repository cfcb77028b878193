"""What every attempt has, whichever its track: the config's common part (budgets, the claw's
settings and profile, model params under the one credential rule, grace periods, the fallback
price), the state its stages read and fill (`AttemptState`: who runs, where its folder is, the
services it talks to, the clock, the next stage and the outcome), and the identity fields of its
cell that do not depend on the track. The patch track (patch.py, patch_stages.py) and the
closed-loop track (closed_loop*.py) subclass these; a track adds what only it has.

The plan style is one for both: a stage names the stage that comes next (`next_stage`), and a
track's plan is the table of its stages by name (clawmark/attempts/stages.py: `plan_by_name`).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from clawmark.attempts.credentials import NoCredentials
from clawmark.attempts.phases import PhaseClock
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.claws import Budgets, ClawAdapter, ClawContext
from clawmark.claws.profiles import ProfileUse
from clawmark.gateway.cassettes import is_scripted
from clawmark.gateway.prices import Price
from clawmark.results import AttemptLayout, AttemptRow, config_hash
from clawmark.results.outcome import ClosedLoopOutcome, PatchOutcome
from clawmark.runtime.images import image_ref


class AttemptConfig(BaseModel):
    """The protocol fields both tracks share; each track's config adds its own."""

    model_config = ConfigDict(hide_input_in_errors=True)  # a refused credential is never echoed

    budgets: Budgets = Field(default_factory=Budgets, description="Claw limits (steps, s, USD).")
    claw_settings: NoCredentials = Field(default_factory=dict, description="Overrides of the claw's Config.")
    profile: ProfileUse = Field(default_factory=ProfileUse, description="Protocol profile the claws run under "
                                "(clawmark.claws.profiles): their versions, prompts, limits and settings.")
    model_params: NoCredentials = Field(default_factory=dict, description="Fixed model params (cell identity).")
    deadline_grace_s: float = Field(120.0, description="Host deadline of a turn = its budget + this.")
    stop_grace_s: float = Field(30.0, gt=0, description="After the host deadline's stop: how long the claw "
                                "gets to end, and running model calls to drain into the ledger.")
    fallback_price: Price | None = Field(
        None, description="USD per Mtok for models without a known price (rows mark price_fallback); "
                          "unset, an unpriced model is refused, as the cost cap could not hold.")


ConfigT = TypeVar("ConfigT", bound=AttemptConfig)
OutcomeT = TypeVar("OutcomeT", PatchOutcome, ClosedLoopOutcome)
Outcome = PatchOutcome | ClosedLoopOutcome  # what a stage that ends the attempt carries (AttemptStopped)


class AttemptState(Generic[ConfigT, OutcomeT]):
    """What one attempt holds while its stages run; stages read it, fill it and name the next."""

    outcome_type: type[OutcomeT]  # the track's outcome: a harness failure is typed by it

    def __init__(self, claw: ClawAdapter, model: str, attempt_id: str, layout: AttemptLayout,
                 gateway: AttemptGateway | None, config: ConfigT, *, store: AttemptStore, fields: dict[str, object],
                 saved_hash: str, price_fallback: bool, first_stage: str) -> None:
        self.claw, self.model, self.attempt_id, self.config = claw, model, attempt_id, config
        self.layout, self.gateway, self.store = layout, gateway, store
        self.fields, self.saved_hash, self.price_fallback = fields, saved_hash, price_fallback
        self.clock, self.started = PhaseClock(), datetime.now(UTC)
        self.ctx: ClawContext | None = None
        self.image_id: str | None = None
        self.next_stage: str | None = first_stage  # None: no stage left before clean-up and record
        self.outcome: OutcomeT | None = None
        self.cleaned_up = False

    @property
    def turn(self) -> int:
        """1-based number of the executor turn under way (names per-turn stage runs); a track of
        one executor turn is always at its first."""
        return 1

    def harness_failed(self, exc: BaseException) -> None:
        self.outcome = self.outcome_type.harness(exc, "attempt")

    def row_fields(self) -> dict[str, object]:
        """The row's fields every track fills the same way: identity, attempt, times, provenance."""
        return {**self.fields, "attempt_id": self.attempt_id, "wall": self.clock.times(), "started_at": self.started,
                "finished_at": datetime.now(UTC), "config_hash": self.saved_hash,
                "scripted_model": is_scripted(self.model), "artifacts_dir": str(self.layout.dir),
                "price_fallback": self.price_fallback}

    def commit(self, row: AttemptRow) -> AttemptRow:
        self.store.write(row)
        return row


def claw_identity(claw: ClawAdapter, model: str, seed: int, sweep_id: str, config: AttemptConfig,
                  claw_image: str | None = None) -> dict[str, object]:
    """The cell's identity fields that mean the same on both tracks: sweep, claw (its version,
    settings, budgets, image layer and profile), model and seed. `claw_image`
    (`claw_image_ref(claw)`) is computed here unless the caller has it already."""
    claw_image = claw_image if claw_image is not None else claw_image_ref(claw)
    image = {"image": claw_image} if claw_image else {}  # a claw's image layer is part of the claw
    return {
        "sweep_id": sweep_id,
        "claw": claw.name,
        "claw_version": claw.version,
        "claw_settings_hash": config_hash({**claw.settings(), "budgets": config.budgets.model_dump(), **image}),
        **profile_fields(claw),
        "model": model,
        "seed": seed,
    }


def profile_fields(claw: ClawAdapter) -> dict[str, str]:
    """The row's record of the protocol profile and what it fixed (the key has them in the settings)."""
    return {"claw_profile": claw.profile, "claw_profile_fixed": json.dumps(claw.profile_fixed, sort_keys=True)}


def claw_image_ref(claw: ClawAdapter) -> str:
    """The content-hash tag of the claw's image layer (e.g. mini-swe-agent's venv), "" for claws
    without one: an edited claw recipe re-keys that claw's cells."""
    if not claw.needs_image_layer:
        return ""
    try:
        return image_ref(claw.needs_image_layer)
    except Exception as exc:  # noqa: BLE001 - a missing recipe shows at provision, as a typed row
        return f"unbuildable: {type(exc).__name__}"
