"""SWE-bench predictions files: `{"instance_id", "model_name_or_path", "model_patch"}` per line.

One line per instance, always: `upsert_prediction` rewrites the whole file atomically keyed by id
(an upstream harness appended a second line when a timed-out instance was resumed). Reading keeps
every valid line and reports each bad one as `file:line: field: expected ...`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from clawmark.fsio import atomic_write_text

from filelock import FileLock
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clawmark.catalog.errors import from_validation
from clawmark.swe.errors import PredictionsError

MAX_PREDICTIONS_BYTES = 1024**3


class Prediction(BaseModel):
    """One prediction row; `model_patch` None or blank means the model produced nothing."""

    model_config = ConfigDict(extra="allow")

    instance_id: str = Field(min_length=1, description="Instance the patch is for.")
    model_name_or_path: str = Field(min_length=1, description="Who produced it (claw × model).")
    model_patch: str | None = Field(description="Unified diff against the base commit, or None.")

    @property
    def is_empty(self) -> bool:
        return self.model_patch is None or not self.model_patch.strip()


@dataclass
class PredictionsRead:
    """Valid predictions by id (later lines win) and one message per problem."""

    by_id: dict[str, Prediction] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def raise_if_problems(self) -> None:
        if self.problems:
            raise PredictionsError(self.problems)


def read_predictions(path: str | Path) -> PredictionsRead:
    """Parse a JSONL (or JSON list) predictions file, keeping valid lines and naming bad ones."""
    path = Path(path)
    read = PredictionsRead()
    seen: dict[str, int] = {}
    for number, row in _rows(path, read):
        prediction = _validate(path, number, row, read)
        if prediction is None:
            continue
        if prediction.instance_id in seen:
            read.problems.append(f"{path}:{number}: instance_id: expected one line per instance "
                                 f"({prediction.instance_id!r} also at line {seen[prediction.instance_id]}; "
                                 "the later line is used)")
        seen[prediction.instance_id] = number
        read.by_id[prediction.instance_id] = prediction
    return read


def write_predictions(path: str | Path, predictions: Iterable[Prediction]) -> None:
    """Write the whole file atomically, one line per instance id, sorted by id."""
    path = Path(path)
    unique = {p.instance_id: p for p in predictions}
    lines = "".join(json.dumps(unique[iid].model_dump(), ensure_ascii=False) + "\n" for iid in sorted(unique))
    atomic_write_text(path, lines)


def upsert_prediction(path: str | Path, prediction: Prediction) -> None:
    """Insert or replace this instance's line (safe across processes sharing the file)."""
    path = Path(path)
    with _locked(path):
        current = read_predictions(path).by_id if path.exists() else {}
        current[prediction.instance_id] = prediction
        write_predictions(path, current.values())


def _locked(path: Path) -> FileLock:
    """Exclusive across processes and threads, waiting as long as it takes (the holder is a quick rewrite)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(path.with_name(f".{path.name}.lock"))


def _rows(path: Path, read: PredictionsRead) -> Iterator[tuple[int, object]]:
    if not path.is_file():
        read.problems.append(f"{path}:0: <file>: expected an existing predictions file")
        return
    if path.stat().st_size > MAX_PREDICTIONS_BYTES:
        read.problems.append(f"{path}:0: <file>: expected at most {MAX_PREDICTIONS_BYTES} bytes")
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith("["):
        yield from _json_list_rows(path, text, read)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            read.problems.append(f"{path}:{number}: <line>: expected one JSON object ({exc.msg})")


def _json_list_rows(path: Path, text: str, read: PredictionsRead) -> Iterator[tuple[int, object]]:
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        read.problems.append(f"{path}:{exc.lineno}: <file>: expected a JSON list of predictions ({exc.msg})")
        return
    yield from enumerate(rows, start=1)


def _validate(path: Path, number: int, row: object, read: PredictionsRead) -> Prediction | None:
    if not isinstance(row, dict):
        read.problems.append(f"{path}:{number}: <line>: expected a JSON object (got {type(row).__name__})")
        return None
    try:
        return Prediction.model_validate(row)
    except ValidationError as err:
        read.problems.append(str(from_validation(path, err, line=number)))
        return None
