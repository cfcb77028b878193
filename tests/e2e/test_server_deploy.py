"""`prefect deploy --all` from the checkout against a real `clawmark server start`, and a deployment
run of the sweep whose provider key, Docker host and result store come only from blocks: the
worker's own environment has no key, a Docker host that does not exist and another results
folder. The key must reach the gateway (the provider double sees it) and nothing we write."""

from __future__ import annotations

import json
import uuid

import pytest
import yaml

from clawmark.gateway.scripted import create_scripted_app
from clawmark.gateway.serving import BackgroundServer
from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from tests.support.prefect_server import (
    PROJECT, api, client_env, deploy_all, deployments, running_server, wait_flow_run, worker,
)

pytestmark = [pytest.mark.docker, pytest.mark.slow]
TASK = "clawmark-fixtures__iniparse-py-1"


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """A SQLite server with the project's deployments and block types on it."""
    root = tmp_path_factory.mktemp("server")
    with running_server(root / "prefect-home") as ui_url:
        env = client_env(ui_url, root / "client-home", PREFECT_WORKER_QUERY_SECONDS="2")
        deploy_all(env)
        yield ui_url, env, root


def test_deploy_all_from_the_checkout(deployed):
    ui_url, _, _ = deployed
    found = deployments(ui_url)
    assert set(found) == {"nightly", "sweep", "rerun-failed"}
    for deployment in found.values():
        assert deployment["work_pool_name"] == "clawmark"
        assert deployment["pull_steps"] == [
            {"prefect.deployments.steps.set_working_directory": {"directory": str(PROJECT)}}]
    assert found["rerun-failed"]["entrypoint"] == "flows/rerun_failed.py:rerun_failed"
    assert {"sweep_id", "statuses", "spec_file"} <= set(found["rerun-failed"]["parameter_openapi_schema"]["properties"])
    assert {"result_store_block", "docker_host_block", "model_endpoint_blocks"} <= set(
        found["sweep"]["parameter_openapi_schema"]["properties"])
    [schedule] = found["nightly"]["schedules"]
    assert schedule["schedule"]["cron"] == "0 2 * * *"


class RecordingProvider:
    """The outside world's model provider: the scripted model, recording who called with which key."""

    def __init__(self) -> None:
        self.authorizations: list[str | None] = []
        app = create_scripted_app()

        @app.middleware("http")
        async def record(request, call_next):
            self.authorizations.append(request.headers.get("authorization"))
            return await call_next(request)

        self.server = BackgroundServer(app, "127.0.0.1", 0).start()
        self.base_url = f"http://127.0.0.1:{self.server.port}/v1"


def _save_blocks(ui_url: str, results, key: str, provider: RecordingProvider) -> None:
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from blocks import DockerHost, ModelEndpoint, ResultStoreBlock

    with temporary_settings({PREFECT_API_URL: f"{ui_url}/api"}):
        ResultStoreBlock(root=str(results)).save("test-results", overwrite=True)
        DockerHost(base_url="unix:///var/run/docker.sock").save("test-docker", overwrite=True)
        ModelEndpoint(model=f"openai/ref-{TASK}", api_key_env="OPENAI_API_KEY", api_key=key,
                      api_base=provider.base_url).save("test-provider", overwrite=True)


def _files_containing(root, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_a_deployment_run_takes_key_docker_host_and_store_from_blocks(docker_client, deployed):
    ui_url, env, root = deployed
    key, results, provider = f"sk-fake-{uuid.uuid4().hex}", root / "block-results", RecordingProvider()
    _save_blocks(ui_url, results, key, provider)
    spec_file = root / "blocks.yaml"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": "blocks", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"), "tasks": [TASK],
        "claws": ["reference"], "models": ["openai/ref-{task_id}"],
        "attempt": {"fallback_price": {"input": 1.0, "output": 2.0}}}))
    sweep = deployments(ui_url)["sweep"]
    flow_run = api(ui_url, "POST", f"/deployments/{sweep['id']}/create_flow_run", {"parameters": {
        "spec_file": str(spec_file), "result_store_block": "test-results", "docker_host_block": "test-docker",
        "model_endpoint_blocks": ["test-provider"]}})
    bare = {k: v for k, v in env.items() if k not in ("OPENAI_API_KEY", "OPENAI_API_BASE", "CLAWMARK_RESULTS")}
    bare.update(DOCKER_HOST="unix:///nonexistent/docker.sock", CLAWMARK_HOME=str(root / "worker-home"))
    with worker(bare, log=root / "worker.log"):
        final = wait_flow_run(ui_url, flow_run["id"])
    assert final["state_type"] == "COMPLETED", (root / "worker.log").read_text()[-4000:]

    frame = ResultStore(results).read("blocks")
    assert len(frame) == 1 and frame["claw"].tolist() == ["reference"]
    assert frame["status"].tolist() == ["resolved"] and frame["cost_usd"].iloc[0] > 0
    assert f"Bearer {key}" in provider.authorizations  # the key reached the gateway's model calls
    assert _files_containing(results, key) == []  # rows, pinned config, artifacts, ledgers
    assert not (root / "worker-home" / "results").exists()  # the store came from the block alone
    assert key not in json.dumps(final["parameters"])
    provider.server.stop()
