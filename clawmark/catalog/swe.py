"""SWE-bench 5.x instance rows (JSONL, JSON list or Parquet) and their helper lists."""

from __future__ import annotations

import csv
import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Iterable, Iterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from clawmark.catalog.errors import CatalogError, UnknownTask, from_validation

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MAX_INSTANCE_FILE_BYTES = 2 * 1024**3  # a full SWE-bench split is ~100 MB; beyond this is a mistake
_PATH_EXTRAS = ("image_recipe", "repo_bundle")


class SweInstance(BaseModel):
    """One SWE-bench 5.x row plus clawmark's optional extras. Unknown columns are kept."""

    model_config = ConfigDict(extra="allow")

    repo: str = Field(min_length=1, description="owner/name on GitHub.")
    instance_id: str = Field(pattern=ID_PATTERN.pattern, description="Unique id, e.g. django__django-11790.")
    base_commit: str = Field(min_length=1, description="Commit the repository is checked out at.")
    patch: str = Field(description="Gold patch (hidden from the executor).")
    test_patch: str = Field(description="Patch adding the tests that decide (hidden).")
    problem_statement: str = Field(description="The issue text the claw sees.")
    hints_text: str = Field("", description="Issue comments before the fix; never shown by clawmark.")
    created_at: str = ""
    version: str = Field("", description="Package version (Python) or PR number (Multilingual).")
    FAIL_TO_PASS: list[str] = Field(description="Tests that must go from failing to passing.")
    PASS_TO_PASS: list[str] = Field(description="Tests that must keep passing.")
    environment_setup_commit: str | None = None
    difficulty: str | None = None
    image: str | None = Field(None, description="Prebuilt evaluation image, if any.")
    eval_script: str | None = Field(None, description="Full eval script; generated when absent.")
    log_parser: str | None = Field(None, description="Name of the log parser, e.g. parse_log_pytest.")
    eval_type: str | None = None
    language: str | None = Field(None, description="clawmark extra: repository language.")
    test_cmd: str | None = Field(None, description="clawmark extra: test command for generated eval scripts.")
    image_recipe: Path | None = Field(None, description="clawmark extra: build context, relative to the instance file.")
    repo_bundle: Path | None = Field(None, description="clawmark extra: `git bundle` of the repo, relative to the instance file.")

    @field_validator("FAIL_TO_PASS", "PASS_TO_PASS", mode="before")
    @classmethod
    def _decode_test_list(cls, value: object) -> object:
        """Verified stores these as JSON strings, Multilingual as native lists."""
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"a list of test names or a JSON string of one ({exc.msg})") from None
        return list(value) if isinstance(value, tuple) else value

    @field_validator("hints_text", "created_at", "version", mode="before")
    @classmethod
    def _as_text(cls, value: object) -> object:
        """Nulls become empty; numeric versions (0.12) and timestamps become text."""
        if value is None:
            return ""
        if isinstance(value, (datetime, date)):
            return value.isoformat()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value

    def resolved_against(self, folder: Path) -> "SweInstance":
        """A copy whose relative path extras are absolute, anchored at the instance file's folder."""
        updates = {name: (folder / getattr(self, name)).resolve()
                   for name in _PATH_EXTRAS if getattr(self, name) is not None}
        return self.model_copy(update=updates) if updates else self


def load_instances(path: str | Path) -> list[SweInstance]:
    """Every row of a JSONL, JSON-list or Parquet file; the first bad row raises CatalogError."""
    path = Path(path)
    rows = list(_read_rows(path))
    instances: list[SweInstance] = []
    seen: dict[str, int] = {}
    for number, row in rows:
        instance = _validate_row(path, number, row)
        if instance.instance_id in seen:
            raise CatalogError(path, "instance_id", f"a unique id ({instance.instance_id!r} also at row "
                               f"{seen[instance.instance_id]})", number)
        seen[instance.instance_id] = number
        instances.append(instance.resolved_against(path.parent.resolve()))
    return instances


def _validate_row(path: Path, number: int, row: object) -> SweInstance:
    if not isinstance(row, dict):
        raise CatalogError(path, "<row>", f"an object with SWE-bench fields (got {type(row).__name__})", number)
    try:
        return SweInstance.model_validate(row)
    except ValidationError as err:
        raise from_validation(path, err, number) from None


def _read_rows(path: Path) -> Iterator[tuple[int, object]]:
    """(row number, raw row) pairs; numbers are 1-based lines for JSONL, rows otherwise."""
    if not path.is_file():
        raise CatalogError(path, "<file>", "an existing instance file")
    if path.stat().st_size > MAX_INSTANCE_FILE_BYTES:
        raise CatalogError(path, "<file>", f"at most {MAX_INSTANCE_FILE_BYTES} bytes")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _parquet_rows(path)
    if suffix in (".jsonl", ".ndjson"):
        return _jsonl_rows(path)
    if suffix == ".json":
        return _json_rows(path)
    raise CatalogError(path, "<file>", "a .jsonl, .json or .parquet instance file")


def _jsonl_rows(path: Path) -> Iterator[tuple[int, object]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise CatalogError(path, "<line>", f"one JSON object per line ({exc.msg})", number) from None


def _json_rows(path: Path) -> Iterator[tuple[int, object]]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith("{"):
            return _jsonl_rows(path)  # a .json file holding JSON lines is common enough to accept
        raise CatalogError(path, "<file>", f"a JSON list of instance objects ({exc.msg})", exc.lineno) from None
    if isinstance(data, dict) and "instance_id" in data:
        data = [data]
    if not isinstance(data, list):
        raise CatalogError(path, "<file>", f"a JSON list of instance objects (got a {type(data).__name__})")
    return iter(enumerate(data, start=1))


def _parquet_rows(path: Path) -> Iterator[tuple[int, object]]:
    import pyarrow as pa  # heavy: only Parquet files need it
    import pyarrow.parquet as pq  # heavy: only Parquet files need it

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise CatalogError(path, "<file>", f"a readable Parquet file ({exc})") from None
    return iter(enumerate(table.to_pylist(), start=1))


def load_id_list(path: str | Path) -> list[str]:
    """Instance or task ids, one a line; blank lines and `#` comments skipped; no duplicates."""
    path = Path(path)
    ids: list[str] = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        item = line.split("#", 1)[0].strip()
        if not item:
            continue
        if not ID_PATTERN.match(item):
            raise CatalogError(path, "id", f"an id matching {ID_PATTERN.pattern} (got {item!r})", number)
        if item in ids:
            raise CatalogError(path, "id", f"each id once ({item!r} repeats)", number)
        ids.append(item)
    return ids


def load_languages(path: str | Path) -> dict[str, str]:
    """instance_id -> language from a TSV with at least `instance_id` and `language` columns."""
    path = Path(path)
    reader = csv.DictReader(_read_text(path).splitlines(), delimiter="\t")
    missing = {"instance_id", "language"} - set(reader.fieldnames or [])
    if missing:
        raise CatalogError(path, "<header>", f"tab-separated columns incl. {sorted(missing)}", 1)
    languages: dict[str, str] = {}
    for number, row in enumerate(reader, start=2):
        if not row.get("instance_id") or not row.get("language"):
            raise CatalogError(path, "instance_id/language", "both values on every row", number)
        languages[row["instance_id"]] = row["language"]
    return languages


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(path, "<file>", f"a readable UTF-8 text file ({exc.__class__.__name__})") from None


def find_instances(path: str | Path, instance_ids: Iterable[str]) -> list[SweInstance]:
    """The rows with these ids, in the order asked; unknown ids raise one UnknownTask naming all."""
    rows = load_instances(path)
    by_id = {row.instance_id: row for row in rows}
    wanted = list(instance_ids)
    if missing := [i for i in wanted if i not in by_id]:
        unknown = ", ".join(repr(i) for i in missing)
        raise UnknownTask(path, "instance_id", f"one of the file's {len(rows)} ids (no {unknown})")
    return [by_id[i] for i in wanted]


def find_instance(path: str | Path, instance_id: str) -> SweInstance:
    return find_instances(path, [instance_id])[0]
