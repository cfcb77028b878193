"""The ONE on-disk schema of result rows, and the flat record <-> `AttemptRow` mapping.

Every Parquet file is written with `RESULTS_SCHEMA` and every read applies it, so a file
written before a column existed still reads (the column comes back null/NaN) and no column is
dropped because the first file happened to lack it. Enums are stored as plain strings so any
Parquet reader (DuckDB, Spark, a laptop) can filter on them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

import pyarrow as pa

from clawmark.results.errors import SchemaMismatch
from clawmark.results.row import PHASES, AttemptRow, PhaseTimes
from clawmark.results.usage import ROLES, TOKEN_KINDS, RoleUsage

if TYPE_CHECKING:
    import pandas as pd

SCHEMA_VERSION = "2"

Cell = str | int | float | bool | datetime | None
"""One column's value in a flat record, as Arrow stores it and gives it back to Python."""

_IDENTITY = [
    ("sweep_id", pa.string()),
    ("cell_key", pa.string()),
    ("attempt_id", pa.string()),
    ("track", pa.string()),
    ("task_id", pa.string()),
    ("task_hash", pa.string()),
    ("category", pa.string()),
    ("capability", pa.string()),
    ("language", pa.string()),
    ("claw", pa.string()),
    ("claw_version", pa.string()),
    ("claw_settings_hash", pa.string()),
    ("claw_profile", pa.string()),
    ("claw_profile_fixed", pa.string()),
    ("model", pa.string()),
    ("model_params_hash", pa.string()),
    ("seed", pa.int64()),
    ("protocol_version", pa.string()),
]
_OUTCOME = [
    ("status", pa.string()),
    ("passed", pa.bool_()),
    ("score", pa.float64()),
    ("threshold", pa.float64()),
    ("resolved", pa.bool_()),
    ("resolution", pa.string()),
    ("turns", pa.int64()),
    ("followups_used", pa.int64()),
    ("error_kind", pa.string()),
    ("error_message", pa.string()),
    ("failure_reason", pa.string()),
    ("best_turn", pa.int64()),
    ("turn_scores", pa.string()),
    ("checks_passed", pa.int64()),
    ("checks_total", pa.int64()),
    ("leak_flags", pa.string()),
    ("followup_leak_blocked", pa.int64()),
]
_USAGE_FIELDS = [f"{kind}_tokens" for kind in TOKEN_KINDS] + ["calls", "refused_calls"]
_USAGE = [
    *((f"{role}_{name}", pa.int64()) for role in ROLES for name in _USAGE_FIELDS),
    *((f"{role}_cost_usd", pa.float64()) for role in ROLES),
    ("cost_usd", pa.float64()),
    *((f"{role}_cap_usd", pa.float64()) for role in ROLES),  # each role's own cap (issue 17); null in older rows
]
_TIME = [
    *((f"wall_{phase}_s", pa.float64()) for phase in PHASES),
    ("started_at", pa.timestamp("us", tz="UTC")),
    ("finished_at", pa.timestamp("us", tz="UTC")),
]
_PROVENANCE = [
    ("clawmark_version", pa.string()),
    ("config_hash", pa.string()),
    ("image_id", pa.string()),
    ("scripted_model", pa.bool_()),
    ("artifacts_dir", pa.string()),
    ("network_policy", pa.string()),
    ("snapshot_mode", pa.bool_()),
    ("runtime_profile", pa.string()),
    ("judge_mode", pa.string()),
    ("price_fallback", pa.bool_()),
    ("claw_reported_input_tokens", pa.int64()),
    ("claw_reported_output_tokens", pa.int64()),
    ("claw_reported_cost_usd", pa.float64()),
    ("usage_mismatch", pa.string()),
    ("web_hits", pa.int64()),
    ("web_misses", pa.int64()),
    ("setup_cache", pa.string()),
    ("setup_cache_key", pa.string()),
    ("supervisor_model", pa.string()),
    ("rejudge_of", pa.string()),
    ("imported_from", pa.string()),
]

RESULTS_SCHEMA: pa.Schema = pa.schema(
    _IDENTITY + _OUTCOME + _USAGE + _TIME + _PROVENANCE,
    metadata={"clawmark.results_schema_version": SCHEMA_VERSION},
)
RESULT_COLUMNS: tuple[str, ...] = tuple(RESULTS_SCHEMA.names)
_FLAT_FIELDS = [name for name, _ in _IDENTITY + _OUTCOME + _PROVENANCE] + ["started_at", "finished_at"]


def to_record(row: AttemptRow) -> dict[str, Cell]:
    """One flat dict with exactly the `RESULTS_SCHEMA` columns."""
    data = row.model_dump(mode="python")
    record: dict[str, Cell] = {name: _plain(data[name]) for name in _FLAT_FIELDS}
    for role in ROLES:
        usage = row.usage.get(role)
        for name in _USAGE_FIELDS:
            record[f"{role}_{name}"] = getattr(usage, name) if usage else None
        record[f"{role}_cost_usd"] = usage.cost_usd if usage else math.nan
        record[f"{role}_cap_usd"] = usage.cap_usd if usage else math.nan
    record["cost_usd"] = row.cost_usd
    for phase in PHASES:
        record[f"wall_{phase}_s"] = getattr(row.wall, phase)
    return {name: record[name] for name in RESULT_COLUMNS}


def to_frame(table: pa.Table) -> pd.DataFrame:
    """Arrow → pandas keeping nulls: bool/int columns become nullable, floats keep NaN."""
    import pandas as pd  # readers only; writers never pay for pandas

    nullable = {pa.bool_(): pd.BooleanDtype(), pa.int64(): pd.Int64Dtype()}
    # Not on Arrow's CPU pool: a pool sweep's last read hung there for good (pyarrow 26.0.1, the
    # converter waiting on a future no idle pool thread ever took); result tables are small.
    return table.to_pandas(types_mapper=nullable.get, use_threads=False)


def to_table(rows: list[AttemptRow]) -> pa.Table:
    return pa.Table.from_pylist([to_record(r) for r in rows], schema=RESULTS_SCHEMA)


def from_record(record: Mapping[str, object]) -> AttemptRow:
    """Inverse of `to_record` (e.g. a DataFrame row back into a validated `AttemptRow`)."""
    fields = {name: _nullable(record.get(name)) for name in _FLAT_FIELDS}
    usage = {}
    for role in ROLES:
        counts = {name: _count(record.get(f"{role}_{name}")) for name in _USAGE_FIELDS}
        cost, cap = _float(record.get(f"{role}_cost_usd")), _float(record.get(f"{role}_cap_usd"))
        if any(v is not None for v in counts.values()) or not math.isnan(cost):
            usage[role] = RoleUsage(**counts, cost_usd=cost, cap_usd=cap)
    wall = PhaseTimes(**{phase: _float(record.get(f"wall_{phase}_s")) for phase in PHASES})
    for name in ("score", "threshold", "claw_reported_cost_usd"):
        fields[name] = _float(fields[name])
    return AttemptRow(**{k: v for k, v in fields.items() if v is not None}, usage=usage, wall=wall)


def _plain(value: object) -> Cell:
    return value.value if hasattr(value, "value") and not isinstance(value, (int, float)) else value


def _from_cell(value: object) -> Cell:
    """pandas NA/NaT or a numpy scalar → plain Python None / value (float NaN stays NaN)."""
    if value is None or isinstance(value, float):
        return value
    import pandas as pd  # only reached when reading rows back, never on the write path

    if pd.api.types.is_scalar(value) and pd.isna(value):
        return None
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value.item() if hasattr(value, "item") else value


def _nullable(value: object) -> Cell:
    """A missing cell in any dtype (None, NA, NaT, or NaN in pandas' `str` dtype) → None."""
    value = _from_cell(value)
    return None if isinstance(value, float) and math.isnan(value) else value


def _count(value: object) -> int | None:
    value = _from_cell(value)
    value = _nullable(value)
    return None if value is None else int(value)


def _float(value: object) -> float:
    value = _from_cell(value)
    return math.nan if value is None else float(value)



def conform(table: pa.Table) -> pa.Table:
    """Any table of result columns → exactly `RESULTS_SCHEMA` (missing columns null, types cast).

    Unknown columns are refused rather than dropped: they mean a newer writer or a typo.
    """
    if unknown := sorted(set(table.column_names) - set(RESULT_COLUMNS)):
        raise SchemaMismatch(f"columns not in RESULTS_SCHEMA: {unknown}")
    arrays = [
        table[f.name].cast(f.type) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
        for f in RESULTS_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=RESULTS_SCHEMA)
