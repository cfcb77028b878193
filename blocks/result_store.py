"""Where rows and artifacts of sweeps are kept."""

from __future__ import annotations

from prefect.blocks.core import Block
from pydantic import Field

from clawmark.results import ResultStore
from clawmark.results.location import open_store


class ResultStoreBlock(Block):
    _block_type_name = "clawmark result store"

    root: str = Field(description="Folder or filesystem URL (s3://…, any fsspec URL) holding rows/ and artifacts; "
                      "shared by every worker of a pool.")

    def store(self) -> ResultStore:
        return open_store(self.root)
