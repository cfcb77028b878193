"""Rows a rerun replaced, kept readable as the cell's history.

A cell runs again when its row is an error (a rerun of the sweep, `rerun-failed`) or under
`--force`; its new row replaces the old one in `rows/` (store.py), so before the new attempt
opens (and empties the cell's artifact folder) the old row and its folder move aside:

```
<root>/history/<sweep_id>/<cell_key>.<attempt_id>.parquet   the replaced row, as it was committed
<artifacts_root>/_history/<sweep_id>/<cell_key>.<attempt_id>/  its artifact folder (logs, row.json)
```
Keyed by the replaced attempt's id, so keeping the same row twice (a retry that crashed before
its commit, then ran again) writes the same file. A sweep id never starts with `_`, so
`_history` is never taken for a sweep's folder. The history of a remote store keeps the rows;
the artifact folders stay on the machine that staged them.
"""

from __future__ import annotations

import io
import shutil
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.fs as pafs
import pyarrow.parquet as pq

from clawmark.results.layout import check_name
from clawmark.results.schema import RESULTS_SCHEMA, to_frame, to_table
from clawmark.results.status import Status, is_error
from clawmark.results.store import SINGLE_ROW_OPTIONS
from clawmark.results.store_files import scan

if TYPE_CHECKING:
    import pandas as pd

    from clawmark.results.store import ResultStore

HISTORY_DIR, ARTIFACTS_HISTORY_DIR = "history", "_history"


def history_dir(store: ResultStore, sweep_id: str) -> str:
    return f"{store.root}/{HISTORY_DIR}/{check_name('sweep_id', sweep_id)}"


def history_folder(store: ResultStore, sweep_id: str, cell_key: str, attempt_id: str) -> Path:
    """Where the artifact folder of a replaced attempt is kept."""
    return store.artifacts_root / ARTIFACTS_HISTORY_DIR / check_name("sweep_id", sweep_id) / f"{cell_key}.{attempt_id}"


def keep_replaced(store: ResultStore, sweep_id: str, cell_key: str) -> str | None:
    """Keep the cell's committed row and artifact folder as history before the cell runs again;
    the history row's path, None when the cell has no row (nothing is replaced)."""
    if not store.has(sweep_id, cell_key):
        return None
    row = store.read_row(sweep_id, cell_key)
    sink = io.BytesIO()
    pq.write_table(to_table([row]), sink, **SINGLE_ROW_OPTIONS)
    path = f"{history_dir(store, sweep_id)}/{check_name('cell_key', cell_key)}.{check_name('attempt_id', row.attempt_id)}.parquet"
    store.publish(path, sink.getvalue())
    folder, kept = store.layout(sweep_id, cell_key).dir, history_folder(store, sweep_id, cell_key, row.attempt_id)
    if folder.is_dir() and not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(folder, kept)
    return path


def read_history(store: ResultStore, sweep_id: str) -> pd.DataFrame:
    """Every replaced row of the sweep (pandas DataFrame, full schema; empty when none)."""
    selector = pafs.FileSelector(history_dir(store, sweep_id), allow_not_found=True)
    files = sorted(i.path for i in store.fs.get_file_info(selector)
                   if i.type == pafs.FileType.File and i.base_name.endswith(".parquet") and not i.base_name.startswith("."))
    if not files:
        return to_frame(RESULTS_SCHEMA.empty_table())
    return to_frame(scan(store.fs, files, None, None))


def replaced_errors(store: ResultStore, sweep_id: str) -> Counter[str]:
    """cell key -> how many error rows of the cell were replaced (the retries it already had)."""
    frame = read_history(store, sweep_id)
    return Counter(key for key, status in zip(frame["cell_key"], frame["status"]) if is_error(Status(status)))
