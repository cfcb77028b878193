"""`AttemptRow`: the one record every attempt of either track leaves behind.

The model is nested for writers (`usage[role]`, `wall`), flat on disk (`to_record()` gives one
column per `RESULTS_SCHEMA` field). Validation enforces the outcome rules so a row cannot say
"pass" and `passed=False` (upstream defect 2) or turn an infrastructure error into a fail.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Self

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, NonNegativeInt, model_validator

import clawmark
from clawmark.results.identity import cell_key_from_hashes
from clawmark.results.status import (
    DEFAULT_ERROR_KIND,
    SUCCESS_STATUSES,
    VIEW_ONLY_STATUSES,
    ErrorKind,
    Resolution,
    Status,
    Track,
    is_error,
    statuses_for,
)
from clawmark.results.usage import ROLES, RoleUsage, fold_usage, total_cost

MAX_ERROR_MESSAGE_CHARS = 4000
PHASES: tuple[str, ...] = ("provision", "inject", "executor", "judge", "extract", "evaluate", "total")


class RowInvalid(ValueError):
    """A row contradicts the outcome rules (status vs passed/resolved/score)."""


class PhaseTimes(BaseModel):
    """Wall seconds per phase; NaN for a phase that did not run (e.g. judge on patch tasks)."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")

    provision: float = math.nan
    inject: float = math.nan
    executor: float = math.nan
    judge: float = math.nan
    extract: float = math.nan
    evaluate: float = math.nan
    total: float = math.nan


def _new_attempt_id() -> str:
    return uuid.uuid4().hex[:16]


def _now() -> datetime:
    return datetime.now(UTC)


class AttemptRow(BaseModel):
    """One attempt of one cell. Leave `cell_key` empty to have it computed from the identity."""

    # NaN must survive row.json: pydantic's default writes null, which then fails to validate.
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")

    # identity
    sweep_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Sweep (folder-safe).")
    cell_key: str = Field("", description="cell_key(...) of the identity fields; computed when empty.")
    attempt_id: str = Field(default_factory=_new_attempt_id, description="This run of the cell (ledger key).")
    track: Track
    task_id: str
    task_hash: str = Field(description="Content hash of the task package / instance row.")
    category: str | None = Field(None, description="Closed-loop category, or the repo for patch tasks.")
    capability: str | None = Field(None, description="skill_usage, exploration, ... (closed-loop).")
    language: str | None = Field(None, description="Natural language (en/zh) or programming language.")
    claw: str
    claw_version: str
    claw_settings_hash: str = Field(description="config_hash(claw settings).")
    claw_profile: str | None = Field(None, description="Protocol profile the claw ran under (clawmark, ucb-paper, "
                                     "csb-paper; clawmark.claws.profiles); null on old rows.")
    claw_profile_fixed: str | None = Field(None, description="JSON of what that profile fixed for the claw: version, "
                                           "image, prompt file and digest, budgets, settings ({} under clawmark).")
    model: str
    model_params_hash: str = Field(description="config_hash(model params).")
    seed: int = 0
    protocol_version: str = clawmark.PROTOCOL_VERSION
    # outcome
    status: Status
    passed: bool | None = Field(None, description="Derived from status when omitted; null for errors.")
    score: float = Field(math.nan, description="Best score 0..1; NaN when unscored, never 0.")
    threshold: float = Field(math.nan, description="Pass threshold (closed-loop).")
    resolved: bool | None = Field(None, description="Patch track: resolved; derived when omitted.")
    resolution: Resolution | None = None
    turns: NonNegativeInt | None = Field(None, description="Executor turns taken.")
    followups_used: NonNegativeInt | None = None
    error_kind: ErrorKind | None = Field(None, description="Derived from status when omitted.")
    error_message: str | None = None
    failure_reason: str | None = Field(
        None, description="Why a measured failure or an error happened, finer than status "
        "(e.g. tests_timeout, log_unusable, output_flood); null for a clean verdict.")
    best_turn: NonNegativeInt | None = Field(None, description="Closed-loop: 0-based turn of the best score "
                                          "(people read it from 1: clawmark.results.outcome.best_turn_of_row).")
    turn_scores: str | None = Field(None, description="Closed-loop: JSON list of the score per turn (NaN = unscored).")
    checks_passed: NonNegativeInt | None = Field(None, description="Closed-loop: executable checks that passed.")
    checks_total: NonNegativeInt | None = Field(None, description="Closed-loop: executable checks run.")
    leak_flags: str | None = Field(None, description="Closed-loop: JSON list of leak-audit flags on follow-ups.")
    followup_leak_blocked: NonNegativeInt | None = Field(
        None, description="Closed-loop: follow-up drafts the leak audit stopped before the executor saw them "
        "(per turn: 1 = redacted and asked again, the retry was sent; 2 = the neutral continue message was sent).")
    # cost and time
    usage: dict[str, RoleUsage] = Field(default_factory=dict, description="Per role; roles in ROLES.")
    wall: PhaseTimes = Field(default_factory=PhaseTimes)
    started_at: AwareDatetime = Field(default_factory=_now)
    finished_at: AwareDatetime = Field(default_factory=_now)
    # provenance
    clawmark_version: str = clawmark.__version__
    config_hash: str = Field("", description="config_hash of the resolved attempt config.")
    image_id: str | None = None
    scripted_model: bool = Field(False, description="True when the model was a scripted double.")
    artifacts_dir: str | None = None
    network_policy: str | None = Field(None, description="Network the claw (and evaluator) had: none, gateway, registries-only, full, default.")
    snapshot_mode: bool | None = Field(None, description="Closed-loop: task_snapshot used instead of live task text.")
    runtime_profile: str | None = Field(None, description="Closed-loop: who the executor was in its container: "
                                        "root-least (root, capabilities dropped, no-new-privileges: upstream's "
                                        "root for upstream-layout tasks) or user-least (uid 1000); null on old rows.")
    judge_mode: str | None = Field(None, description="Closed-loop: how the judges ran (the protocol's "
                                   "closed_loop.judge): prompt (one model call each) or agent (the Codex CLI in a "
                                   "judge container per role); null on patch rows and old rows.")
    price_fallback: bool | None = Field(None, description="True when a sweep fallback price priced an unpriced model.")
    claw_reported_input_tokens: NonNegativeInt | None = Field(None, description="The claw's own usage report (cross-check).")
    claw_reported_output_tokens: NonNegativeInt | None = None
    claw_reported_cost_usd: float = Field(math.nan, description="The claw's own cost figure; NaN when it reports none.")
    usage_mismatch: str | None = Field(None, description="How the claw's own usage disagrees with the gateway ledger; null when it agrees or reports none.")
    web_hits: NonNegativeInt | None = Field(None, description="Web replay: requests served from the task's web archive; null when the web proxy was off.")
    web_misses: NonNegativeInt | None = Field(None, description="Web replay: requests not in the archive (refused, or fetched live in replay-or-live).")
    setup_cache: str | None = Field(None, description="Closed-loop: where the set-up before the first turn came "
                                    "from: captured (this attempt captured it), hit (captured before), or `off: why`.")
    setup_cache_key: str | None = Field(None, description="Closed-loop: the input hash of that captured set-up.")
    supervisor_model: str | None = Field(None, description="Closed-loop: the model that judged the turns (the supervisor route's pinned model).")
    rejudge_of: str | None = Field(None, description="Closed-loop re-judge: attempt_id of the attempt whose saved turns this row judged again; null for an attempt run here.")
    imported_from: str | None = Field(None, description="Set on rows imported from a published table (source, commit, file "
                                      "hash); their `passed` is the source's verdict, not re-derived from a threshold.")

    @classmethod
    def from_usage(cls, usage_summary: Mapping[str, Any], *, caps: Mapping[str, float | None] | None = None,
                   **fields: object) -> Self:
        """Build a row whose token/cost/call columns come from a `{role: totals}` summary, and
        whose cap columns from `caps` (role -> that role's own cost cap)."""
        return cls(usage=fold_usage(usage_summary, caps), **fields)

    @property
    def cost_usd(self) -> float:
        return total_cost(self.usage) if self.usage else math.nan

    def identity_key(self) -> str:
        return cell_key_from_hashes(
            track=self.track,
            task_id=self.task_id,
            task_hash=self.task_hash,
            claw=self.claw,
            claw_version=self.claw_version,
            claw_settings_hash=self.claw_settings_hash,
            model=self.model,
            model_params_hash=self.model_params_hash,
            seed=self.seed,
            protocol_version=self.protocol_version,
        )

    @model_validator(mode="after")
    def _check(self) -> Self:
        self._check_identity()
        self._check_status()
        self._derive_outcome()
        if self.error_message and len(self.error_message) > MAX_ERROR_MESSAGE_CHARS:
            self.error_message = self.error_message[: MAX_ERROR_MESSAGE_CHARS - 1] + "…"
        if unknown := sorted(set(self.usage) - set(ROLES)):
            raise RowInvalid(f"usage has roles {unknown}; known roles are {list(ROLES)}")
        return self

    def _check_identity(self) -> None:
        expected = self.identity_key()
        if not self.cell_key:
            self.cell_key = expected
        elif self.cell_key != expected:
            raise RowInvalid(f"cell_key {self.cell_key} does not match the identity fields ({expected})")

    def _check_status(self) -> None:
        if self.status in VIEW_ONLY_STATUSES:
            raise RowInvalid(f"status {self.status} is for views only; a stored row has an outcome")
        if self.status not in statuses_for(self.track):
            raise RowInvalid(f"status {self.status} is not a {self.track} status")
        if self.error_kind is None:
            self.error_kind = DEFAULT_ERROR_KIND[self.status]

    def _derive_outcome(self) -> None:
        if self.imported_from is not None and self.passed is not None and not is_error(self.status):
            # A published verdict stands as published (thresholds are not always published), but a
            # "pass" label on a failed row (upstream defect 2) is refused: the importer must relabel it.
            if self.status is Status.PASS and not self.passed:
                raise RowInvalid("status pass with passed=False")
            if self.track is Track.PATCH and self.resolved is None:
                self.resolved = self.passed
            return
        expected = self._expected_passed()
        if self.passed is None:
            self.passed = expected
        elif self.passed != expected:
            raise RowInvalid(f"status {self.status} with score {self.score} / threshold {self.threshold} "
                             f"requires passed={expected}, got passed={self.passed}")
        if self.track is Track.PATCH:
            if self.resolved is None:
                self.resolved = expected
            elif self.resolved != expected:
                raise RowInvalid(f"status {self.status} requires resolved={expected}, got {self.resolved}")
        if self.status is Status.PASS and not self.passed:
            raise RowInvalid(f"pass needs score >= threshold, got {self.score} < {self.threshold}")

    def _expected_passed(self) -> bool | None:
        """closed-loop.md: passed = best score >= threshold unless the status is an error (null)
        or executor_incomplete; a budget or global-timeout stop keeps a pass already earned."""
        if is_error(self.status):
            return None
        if self.track is Track.PATCH:
            return self.status in SUCCESS_STATUSES
        if self.status is Status.EXECUTOR_INCOMPLETE:
            return False
        return bool(self.score >= self.threshold)  # NaN compares False: unscored never passes
