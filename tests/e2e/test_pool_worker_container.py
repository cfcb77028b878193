"""A pool worker with no checkout: the worker image (`clawmark images worker`) run as its own
container, with its own filesystem, network namespace and Docker engine, reaching the Prefect
server, an S3 store (moto) and a registry (Debian's docker-registry) over the Docker bridge, as
a second machine reaches them over its network. It joins the pool, pulls the python image from
the registry instead of building it, runs every cell of the sweep, and the rows are those of a
local run of the same cells."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import yaml

from clawmark.results.location import open_store
from clawmark.runtime.images import ensure_image
from clawmark.runtime.worker_image import CODE_ROOT, RUN_ARGS, ensure_worker_image
from clawmark.settings import TASKS_CATALOG
from tests.support.image_registry import image_registry
from tests.support.paths import REPO
from tests.support.prefect_server import PREFECT, api, client_env, run, running_server
from tests.support.s3_server import CREDENTIALS, s3_server

# make test builds the worker image in its image phase; run alone from zero, this test builds it (~3-5 min of pip downloads).
pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(1800)]
POOL, SWEEP = "contained", "contained"
CELLS = {"tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"]}


def _spec(path, sweep_id):
    path.write_text(yaml.safe_dump({"sweep_id": sweep_id, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
                                    "max_parallel": 2, **CELLS}))
    return path


def _sweep(spec_file, env, *options):
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec_file), *options], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    return done.stdout


def _await_worker(container, timeout_s=600.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        container.reload()
        logs = container.logs().decode(errors="replace")
        if "started!" in logs:
            return
        assert container.status == "running", logs[-4000:]
        time.sleep(1)
    raise AssertionError(container.logs().decode(errors="replace")[-4000:])


def test_a_worker_in_its_own_container_runs_the_sweep(docker_client, tmp_path):
    worker_ref, python_ref = ensure_worker_image(), ensure_image("python")
    labels = {"clawmark.test": "pool-worker-container"}
    network = docker_client.networks.create(f"clawmark-test-worker-{os.getpid()}", driver="bridge", labels=labels)
    network.reload()
    bridge_ip = network.attrs["IPAM"]["Config"][0]["Gateway"]  # the worker's way to this machine
    volume = docker_client.volumes.create(labels=labels)
    container = None
    with image_registry(tmp_path / "registry", host="0.0.0.0") as port, \
            running_server(tmp_path / "prefect-home", host=bridge_ip) as ui_url, \
            s3_server(tmp_path, host=bridge_ip) as (results, _):
        env = client_env(ui_url, tmp_path / "client-home", **CREDENTIALS, CLAWMARK_HOME=str(tmp_path / "home"),
                         LITELLM_LOCAL_MODEL_COST_MAP="True", CLAWMARK_IMAGE_REGISTRY=f"127.0.0.1:{port}")
        pushed = run([sys.executable, "-m", "clawmark.cli.main", "images", "push", "python"], env)
        assert f"pushed 127.0.0.1:{port}/{python_ref}" in pushed
        run([*PREFECT, "work-pool", "create", POOL, "--type", "process"], env, timeout_s=180)
        try:
            environment = {**CREDENTIALS, "PREFECT_API_URL": f"{ui_url}/api", "PREFECT_WORKER_QUERY_SECONDS": "2",
                           "CLAWMARK_IMAGE_REGISTRY": f"{bridge_ip}:{port}", "CLAWMARK_IMAGE_REGISTRY_INSECURE": "1",
                           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONUNBUFFERED": "1"}
            started = run(["docker", "run", "-d", *RUN_ARGS, "--network", network.name, "--label",
                           "clawmark.test=pool-worker-container", "-v", f"{volume.name}:/var/lib/docker",
                           *(arg for key, value in environment.items() for arg in ("-e", f"{key}={value}")),
                           worker_ref, POOL], env)
            container = docker_client.containers.get(started.strip().splitlines()[-1])
            _await_worker(container)
            output = _sweep(_spec(tmp_path / "pool.yaml", SWEEP), env, "--pool", POOL, "--results", results)
            assert "2 run, 0 reused" in output or "[2/2]" in output, \
                output[-3000:] + "\nworker:\n" + container.logs().decode(errors="replace")[-3000:]
            checkout = container.exec_run(["test", "-e", str(REPO)]).exit_code
            engine = container.exec_run(["docker", "image", "inspect", python_ref, "--format", "{{.Id}}"])
            base = container.exec_run(["docker", "image", "inspect", ensure_image("base")])
            worker_logs = container.logs().decode(errors="replace")
            runs = api(ui_url, "POST", "/flow_runs/filter", {"flow_runs": {"name": {"like_": f"{SWEEP}/"}}})
            for key, value in CREDENTIALS.items():
                os.environ.setdefault(key, value)
            pooled = open_store(results, staging=tmp_path / "staging").read(SWEEP).set_index("claw").sort_index()
        finally:  # the network goes last: the server and the store listen on its address
            if container is not None:
                container.remove(force=True, v=True)
            volume.remove(force=True)
            network.remove()

    assert checkout == 1, "the worker container must not see the project's checkout"
    # pulled, not built: the host's very image, and its parent was never needed there
    assert engine.exit_code == 0 and engine.output.decode().strip() == docker_client.images.get(python_ref).id, \
        engine.output
    assert base.exit_code != 0, "the worker built the base image instead of pulling python"
    assert "started!" in worker_logs
    cell_runs = [r for r in runs if r["name"].startswith(f"{SWEEP}/")]
    assert len(cell_runs) == 2 and {r["state_type"] for r in cell_runs} == {"COMPLETED"}, cell_runs
    assert all(r["id"] in worker_logs for r in cell_runs), worker_logs[-3000:]  # the container's worker ran them

    local_results = tmp_path / "local"
    _sweep(_spec(tmp_path / "local.yaml", "local"), {**os.environ, "CLAWMARK_HOME": str(tmp_path / "home-local")},
           "--results", str(local_results))
    local = open_store(str(local_results)).read("local").set_index("claw").sort_index()
    assert list(pooled.columns) == list(local.columns)
    assert pooled.dtypes.equals(local.dtypes)
    assert pooled["status"].to_dict() == local["status"].to_dict() == {"nop": "empty_patch", "oracle": "resolved"}
    same = ["task_id", "task_hash", "claw_version", "claw_settings_hash", "model", "status", "resolved"]
    assert pooled[same].equals(local[same]), (pooled[same], local[same])  # the same code, the same cells
    assert CODE_ROOT != str(REPO)
