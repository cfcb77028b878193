"""What both importers share: reading a published JSON file with errors that name the row and
field, the provenance stamp of its rows, and writing the rows into a store in one compacted file."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from clawmark.jsontypes import JsonValue
from clawmark.results.identity import config_hash
from clawmark.results.row import AttemptRow, RowInvalid
from clawmark.results.schema import to_table
from clawmark.results.store import ResultStore

PUBLISHED_VERSION = "published"  # claw_version of imported rows: the source names no claw release

Kind = TypeVar("Kind")
Number = TypeVar("Number", bound=float | None)


class ImportInvalid(ValueError):
    """A published file that is not what the importer reads: `FILE: ROW: FIELD: expected …`."""

    def __init__(self, file: str | Path, field: str, expected: str, row: str | None = None) -> None:
        self.file, self.field, self.expected, self.row = str(file), field, expected, row
        where = f"{self.file}: {row}" if row else self.file
        super().__init__(f"{where}: {field}: expected {expected}")


@dataclass(frozen=True)
class Source:
    """Where a published file came from; `tag` goes into every row's `imported_from`."""

    path: Path
    repository: str
    commit: str | None
    sha256: str

    @property
    def tag(self) -> str:
        return f"{self.repository}@{self.commit or 'unknown-commit'}:{self.path.name}#sha256={self.sha256[:16]}"


@dataclass(frozen=True)
class ImportSummary:
    sweep_id: str
    rows: int
    setups: int
    source: str


def read_published(path: str | Path, repository: str, commit: str | None) -> tuple[JsonValue, Source]:
    """The parsed JSON document and its `Source`; a truncated or non-JSON file names itself."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportInvalid(path, "file", f"a readable file ({exc.strerror or exc})") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ImportInvalid(path, "document", f"complete JSON (truncated or not JSON: {exc})") from exc
    return data, Source(path, repository, commit, hashlib.sha256(raw).hexdigest())


@overload
def field(record: object, name: str, kinds: tuple[type[Kind], ...], expected: str, *, file: Path, row: str,
          nullable: Literal[False] = False) -> Kind: ...


@overload
def field(record: object, name: str, kinds: tuple[type[Kind], ...], expected: str, *, file: Path, row: str,
          nullable: bool) -> Kind | None: ...


def field(record: object, name: str, kinds: tuple[type[Kind], ...], expected: str, *, file: Path, row: str,
          nullable: bool = False) -> Kind | None:
    """`record[name]` when it has one of `kinds` (bool is never a number); else `ImportInvalid`."""
    if not isinstance(record, dict):
        raise ImportInvalid(file, name, f"an object with {name!r}", row)
    if name not in record:
        raise ImportInvalid(file, name, f"{expected} (field missing)", row)
    value = record[name]
    if value is None and nullable:
        return None
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise ImportInvalid(file, name, f"{expected}, got {value!r:.60}", row)
    return value


def non_negative(value: Number, name: str, *, file: Path, row: str) -> Number:
    if value is not None and value < 0:
        raise ImportInvalid(file, name, f"a non-negative number, got {value!r}", row)
    return value


def identity(source: Source) -> dict[str, Any]:
    """Identity fields every imported row shares: no settings or params are published."""
    return {"claw_version": PUBLISHED_VERSION, "claw_settings_hash": config_hash({}), "model_params_hash": config_hash({}),
            "task_hash": f"published:{source.commit or source.sha256[:16]}", "imported_from": source.tag,
            "clawmark_version": PUBLISHED_VERSION, "scripted_model": False}


def make_row(fields: dict[str, Any], *, file: Path, row: str) -> AttemptRow:
    try:
        return AttemptRow(**fields)
    except (RowInvalid, ValueError) as exc:
        raise ImportInvalid(file, "row", f"a valid clawmark row ({str(exc).splitlines()[0]:.200})", row) from exc


def write_import(store: ResultStore, sweep_id: str, rows: list[AttemptRow], source: Source,
                 meta: dict[str, Any]) -> ImportSummary:
    """Pin what was imported as the sweep's config (a second import of another file into the same
    sweep is refused by the pin), then write all rows into the sweep's compacted file."""
    config = {"imported": {"source": source.repository, "commit": source.commit, "file": source.path.name,
                           "sha256": source.sha256, **meta}}
    config_key = store.pin_config(sweep_id, config)
    rows = [r.model_copy(update={"config_hash": config_key}) for r in rows]
    store.import_table(sweep_id, to_table(rows))
    return ImportSummary(sweep_id, len(rows), len({(r.claw, r.model) for r in rows}), source.tag)
