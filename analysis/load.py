"""Rows for analysis from wherever they are: a store root, one exported Parquet file, or a frame."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from clawmark.results import ResultStore, conform, to_frame


def load_rows(source: str | Path | pd.DataFrame, sweep_id: str | list[str] | None = None) -> pd.DataFrame:
    """A DataFrame with the full results schema. A file is any Parquet of result columns (e.g.
    `ResultStore.export`); a directory is a store root; a frame is passed through."""
    if isinstance(source, pd.DataFrame):
        return source
    path = Path(source)
    if path.is_file():
        frame = to_frame(conform(pq.read_table(path)))
        return frame if sweep_id is None else frame[frame["sweep_id"].isin([sweep_id] if isinstance(sweep_id, str) else sweep_id)]
    if path.is_dir():
        return ResultStore(path).read(sweep_id)
    raise FileNotFoundError(f"{path}: expected a results Parquet file or a result store folder")
