"""What a sweep runs, as one pydantic model loaded from YAML (or built in code)."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.patch import CREDENTIAL_ERROR, PatchAttemptConfig
from clawmark.catalog.errors import CatalogError, from_validation
from clawmark.settings import TASKS_CATALOG


class ClosedLoopPart(BaseModel, extra="forbid", hide_input_in_errors=True):
    """The closed-loop cells of a sweep: task packages × the sweep's claws that run closed-loop."""

    tasks_dir: Path = Field(TASKS_CATALOG / "closed_loop", description="A task tree (either layout).")
    suite: str | None = Field(None, description="Suite name in tasks_catalog/suites; None = every task of the tree.")
    tasks: list[str] = Field(default_factory=list, description="Explicit task ids; override `suite`.")
    claws: list[str] | None = Field(None, description="Claws for these cells; default: the sweep's claws that run closed-loop.")
    attempt: ClosedLoopAttemptConfig = Field(default_factory=ClosedLoopAttemptConfig, description="The fixed protocol.")


class SweepSpec(BaseModel, extra="forbid", hide_input_in_errors=True):
    """One sweep over both tracks. Every cell is (task, claw, model, seed) under one protocol.
    Errors never echo the input: a credential put in by mistake must not reach a log."""

    sweep_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Folder and row key of the sweep.")
    instances: Path | None = Field(TASKS_CATALOG / "swe" / "instances.jsonl",
                                   description="SWE-bench-format rows of the patch cells; null = no patch cells.")
    suite: str | None = Field(None, description="Suite name in tasks_catalog/suites; None = every instance.")
    tasks: list[str] = Field(default_factory=list, description="Explicit instance ids; override `suite`.")
    claws: list[str] = Field(min_length=1, description="Claw names (see clawmark.claws registry).")
    models: list[str] = Field(min_length=1, description="litellm model strings, or scripted/<cassette>.")
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, description="Repeats per cell.")
    attempt: PatchAttemptConfig = Field(default_factory=PatchAttemptConfig, description="The fixed protocol.")
    max_cost_usd: float | None = Field(None, gt=0, description="Stop scheduling cells once spent ≥ this.")
    max_parallel: int = Field(1, ge=1, le=64, description="Cells run at once (Docker slots).")
    closed_loop: ClosedLoopPart | None = Field(None, description="Closed-loop cells of the sweep (none when absent).")

    @field_validator("claws", "models")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        if len(set(values)) != len(values):
            raise ValueError("each entry once")
        return values


def load_spec(path: str | Path) -> SweepSpec:
    """A sweep file; relative `instances` paths resolve against the file's folder."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogError(path, "<file>", f"a readable YAML mapping ({type(exc).__name__}: {exc})") from exc
    if not isinstance(raw, dict):
        raise CatalogError(path, "<root>", "a mapping of sweep fields")
    if raw.get("instances") and not Path(str(raw["instances"])).is_absolute():
        raw["instances"] = str(path.parent / str(raw["instances"]))
    closed = raw.get("closed_loop")
    if isinstance(closed, dict) and closed.get("tasks_dir") and not Path(str(closed["tasks_dir"])).is_absolute():
        raw["closed_loop"] = {**closed, "tasks_dir": str(path.parent / str(closed["tasks_dir"]))}
    try:
        return SweepSpec.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        if first["type"] == CREDENTIAL_ERROR:  # say where, never echo the value
            raise CatalogError(path, ".".join(str(p) for p in first["loc"]), first["msg"]) from None
        raise from_validation(path, err) from err
