"""Which Docker engine a worker drives (a local socket or a remote DOCKER_HOST)."""

from __future__ import annotations

import os

from prefect.blocks.core import Block
from pydantic import Field


class DockerHost(Block):
    _block_type_name = "clawmark docker host"

    base_url: str | None = Field(None, description="DOCKER_HOST, e.g. unix:///var/run/docker.sock or tcp://h:2376.")
    max_parallel: int = Field(1, ge=1, description="Containers this engine may run for clawmark at once.")

    def export(self) -> None:
        """The docker SDK and CLI both read DOCKER_HOST; set it for this process."""
        if self.base_url:
            os.environ["DOCKER_HOST"] = self.base_url
