"""Results: the attempt row, its one Parquet schema, cell identity, the store and the
artifact folder layout. Depends on pydantic and pyarrow only (pandas when reading)."""

from __future__ import annotations

from clawmark.results.identity import cell_key, cell_key_from_hashes, config_hash
from clawmark.results.layout import AttemptLayout, UnsafeName
from clawmark.results.outcome import AttemptOutcome, ClosedLoopOutcome, PatchOutcome
from clawmark.results.row import PHASES, AttemptRow, PhaseTimes, RowInvalid
from clawmark.results.schema import RESULT_COLUMNS, RESULTS_SCHEMA, conform, from_record, to_frame, to_record, to_table
from clawmark.results.status import (
    CLOSED_LOOP_STATUSES,
    ERROR_STATUSES,
    PATCH_STATUSES,
    ErrorKind,
    Resolution,
    Status,
    Track,
    is_error,
)
from clawmark.results.errors import BadFile, ConfigMismatch, CorruptResults, SchemaMismatch
from clawmark.results.store import ReadResult, ResultStore
from clawmark.results.usage import ROLES, RoleUsage, UnknownRole, fold_usage

__all__ = [
    "AttemptLayout", "AttemptOutcome", "AttemptRow", "ClosedLoopOutcome", "BadFile", "ConfigMismatch", "CLOSED_LOOP_STATUSES", "CorruptResults", "ERROR_STATUSES",
    "ErrorKind", "PATCH_STATUSES", "PatchOutcome", "PHASES", "PhaseTimes", "RESULTS_SCHEMA", "RESULT_COLUMNS", "ROLES",
    "ReadResult", "Resolution", "ResultStore", "RoleUsage", "RowInvalid", "SchemaMismatch", "Status", "Track",
    "UnknownRole", "UnsafeName", "cell_key", "cell_key_from_hashes", "config_hash", "fold_usage",
    "conform", "from_record", "is_error", "to_frame", "to_record", "to_table",
]
