"""Put named blocks to work in a flow run: the one place a deployment's block parameters are read.

A deployment run names its blocks (flow parameters `result_store_block`, `docker_host_block`,
`model_endpoint_blocks`); the server holds their values, secrets included, so a worker needs no
local configuration beyond PREFECT_API_URL. With no names the embedded set-up applies: the
result store, Docker host and keys come from the process's own environment and files.
"""

from __future__ import annotations

from collections.abc import Iterable

from prefect import get_run_logger

from blocks.docker_host import DockerHost
from blocks.model_endpoint import ModelEndpoint
from blocks.result_store import ResultStoreBlock


def use_blocks(result_store_block: str | None = None, docker_host_block: str | None = None,
               model_endpoint_blocks: Iterable[str] | None = None) -> str | None:
    """Export the Docker host and provider keys into this process (where the gateway and the
    Docker client read them) and return the result store's root, or None for the default."""
    logger = get_run_logger()
    if docker_host_block:
        DockerHost.load(docker_host_block).export()
        logger.info("docker host from block %r", docker_host_block)
    for name in model_endpoint_blocks or []:
        endpoint = ModelEndpoint.load(name)
        endpoint.export_key()
        logger.info("model endpoint %r: %s (key %s)", name, endpoint.model,
                    f"in ${endpoint.api_key_env}" if endpoint.api_key is not None else "none")
    if not result_store_block:
        return None
    root = ResultStoreBlock.load(result_store_block).root
    logger.info("result store from block %r: %s", result_store_block, root)
    return root
