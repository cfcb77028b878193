"""Prefect Block types that hold clawmark configuration in a Prefect server.

Blocks live here, not in `clawmark/`, because core code never imports Prefect; each block turns
itself into the core's own config objects (or environment) with one method.
Register them once per server: `prefect block register -m blocks`.
"""

from blocks.docker_host import DockerHost
from blocks.model_endpoint import ModelEndpoint
from blocks.result_store import ResultStoreBlock

__all__ = ["DockerHost", "ModelEndpoint", "ResultStoreBlock"]
