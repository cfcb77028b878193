"""Where rows and artifacts of sweeps are kept."""

from __future__ import annotations

from pathlib import Path

from prefect.blocks.core import Block
from pydantic import Field

from clawmark.results import ResultStore


class ResultStoreBlock(Block):
    _block_type_name = "clawmark result store"

    root: str = Field(description="Folder (shared storage for many workers) holding rows/ and artifacts.")

    def store(self) -> ResultStore:
        return ResultStore(Path(self.root))
