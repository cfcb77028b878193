"""Executable checkpoints: the hidden `references/checks.yaml` of a task (supervisor side only).

Each check tests one artifact of `/tmp_workspace/results` (copied to a separate check container);
a check may name the rubric checkpoint it covers, and a cap may tie a score ceiling to a check.
A checkpoint named by checks (and not listed as `advisory`) is scored in code: its weight when
every one of its checks passes, else 0. The syntax is documented in tasks_catalog/closed_loop/README.md.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from clawmark.catalog.errors import CatalogError, from_validation, read_yaml_mapping
from clawmark.catalog.eval_rule import Rubric

CHECKS_FILE = "references/checks.yaml"
MAX_CHECKS_BYTES = 256 * 1024
CheckKind = Literal["file_exists", "json_keys", "csv_columns", "equals_reference", "regex", "number", "script"]
# Fields each kind cannot run without (beyond `path`, which every kind but `script` needs).
REQUIRED: dict[str, tuple[str, ...]] = {
    "file_exists": (), "json_keys": ("keys",), "csv_columns": ("columns",),
    "equals_reference": ("reference",), "regex": ("pattern",), "number": ("value",), "script": ("script",),
}
_POINTER = re.compile(r"^[^.\s]+(?:\.[^.\s]+)*$")


def _relative(value: str | None, field: str) -> str | None:
    if value is None:
        return value
    parts = PurePosixPath(value).parts
    if not value.strip() or value.startswith(("/", "~")) or ".." in parts:
        raise ValueError(f"a relative path without '..' for {field} (got {value!r})")
    return value


class Check(BaseModel):
    """One machine check of an artifact; only the fields of its `kind` are used."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$", max_length=64)
    checkpoint: str | None = Field(None, description="Rubric checkpoint id this check covers.")
    kind: CheckKind
    path: str | None = Field(None, description="Artifact path relative to /tmp_workspace (results/...).")
    keys: list[str] = Field(default_factory=list, description="json_keys: keys the JSON object must hold.")
    columns: list[str] = Field(default_factory=list, description="csv_columns: header names the CSV must hold.")
    pointer: str | None = Field(None, description="JSON key path `a.b.0` for equals_reference / number.")
    reference: str | None = Field(None, description="equals_reference: a file under references/.")
    reference_pointer: str | None = Field(None, description="Key path into the reference file.")
    pattern: str | None = Field(None, description="regex: searched in the artifact's text.")
    value: float | None = Field(None, description="number: the expected value.")
    tolerance: float = Field(0.0, ge=0.0, description="number: absolute tolerance.")
    script: str | None = Field(None, description="script: a file under references/; exit 0 = pass.")
    timeout_s: float = Field(60.0, gt=0, le=600, description="script: wall-clock limit.")
    description: str = ""

    @field_validator("path", "reference", "script")
    @classmethod
    def _stays_relative(cls, value: str | None, info) -> str | None:
        return _relative(value, info.field_name)

    @field_validator("reference", "script")
    @classmethod
    def _is_hidden(cls, value: str | None, info) -> str | None:
        if value is not None and not value.startswith("references/"):
            raise ValueError(f"a file under references/ for {info.field_name} (got {value!r})")
        return value

    @field_validator("pointer", "reference_pointer")
    @classmethod
    def _pointer_shape(cls, value: str | None) -> str | None:
        if value is not None and not _POINTER.match(value):
            raise ValueError(f"a key path like a.b.0 (got {value!r})")
        return value

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"a valid regular expression ({exc})") from None
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> "Check":
        needed = REQUIRED[self.kind] + (() if self.kind == "script" else ("path",))
        missing = [name for name in needed if getattr(self, name) in (None, [], "")]
        if missing:
            raise ValueError(f"{', '.join(missing)} for a {self.kind} check")
        return self


class CapRule(BaseModel):
    """When `check` fails, the final score is at most `max_score` (computed in code)."""

    model_config = ConfigDict(extra="forbid")

    check: str
    max_score: float = Field(ge=0.0, le=1.0)


class CoveredCheckpoint(BaseModel):
    """A checkpoint whose score is computed in code: `weight` x (every check in `checks` passes)."""

    id: str
    weight: float
    checks: list[str]


class ChecksFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checks: list[Check] = Field(default_factory=list)
    caps: list[CapRule] = Field(default_factory=list)
    advisory: list[str] = Field(default_factory=list, description="Checkpoint ids whose checks are "
                                "evidence for the supervisor only (not scored in code).")

    @model_validator(mode="after")
    def _ids_unique_and_caps_known(self) -> "ChecksFile":
        ids = [c.id for c in self.checks]
        duplicate = next((i for i in ids if ids.count(i) > 1), None)
        if duplicate:
            raise ValueError(f"unique check ids (got {duplicate!r} twice)")
        unknown = next((c.check for c in self.caps if c.check not in ids), None)
        if unknown:
            raise ValueError(f"caps naming a check of this file (got {unknown!r})")
        return self

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def covered(self, rubric: Rubric) -> list[CoveredCheckpoint]:
        """Checkpoints of `rubric` scored in code, in rubric order, with their weights and checks."""
        covered = []
        for checkpoint in rubric.checkpoints:
            names = [c.id for c in self.checks if c.checkpoint == checkpoint.id]
            if names and checkpoint.id not in self.advisory:
                covered.append(CoveredCheckpoint(id=checkpoint.id, weight=checkpoint.weight, checks=names))
        return covered

    def covered_weight(self, rubric: Rubric) -> float:
        return sum(c.weight for c in self.covered(rubric))


def load_checks(package: Path, rubric: Rubric) -> ChecksFile | None:
    """`references/checks.yaml` of a package, validated against its rubric; None when absent."""
    file = package / CHECKS_FILE
    if not file.exists():
        return None
    checks = _parse(file)
    _against_rubric(file, checks, rubric)
    _files_exist(file, checks, package)
    return checks


def _parse(file: Path) -> ChecksFile:
    data = read_yaml_mapping(file, max_bytes=MAX_CHECKS_BYTES, what="checks file",
                             root="a mapping with `checks:` (and optional `caps:`)")
    try:
        return ChecksFile.model_validate(data)
    except ValidationError as err:
        raise from_validation(file, err) from None


def _against_rubric(file: Path, checks: ChecksFile, rubric: Rubric) -> None:
    known = [c.id for c in rubric.checkpoints]
    listed = ", ".join(known) if known else "none: the rubric has no extractable checkpoints"
    for index, check in enumerate(checks.checks):
        if check.checkpoint is not None and check.checkpoint not in known:
            raise CatalogError(file, f"checks.{index}.checkpoint",
                               f"a checkpoint id of the rubric ({listed}) (got {check.checkpoint!r})")
    for index, checkpoint in enumerate(checks.advisory):
        if checkpoint not in known:
            raise CatalogError(file, f"advisory.{index}", f"a checkpoint id of the rubric ({listed}) "
                               f"(got {checkpoint!r})")


def _files_exist(file: Path, checks: ChecksFile, package: Path) -> None:
    for index, check in enumerate(checks.checks):
        for field in ("reference", "script"):
            declared = getattr(check, field)
            target = (package / declared).resolve() if declared else None
            if target is not None and not (target.is_file() and target.is_relative_to(package / "references")):
                raise CatalogError(file, f"checks.{index}.{field}", f"an existing file under references/ "
                                   f"(got {declared!r})")
