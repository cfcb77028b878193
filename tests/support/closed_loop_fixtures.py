"""Fixtures of the closed-loop attempt tests: a gateway containers can reach, a fresh result store,
task packages copied into a temp tree (so a test can break one on purpose), per-test cassettes,
and readers of an attempt folder."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task, load_tasks
from clawmark.settings import TASKS_CATALOG
from tests.support.paths import FIXTURES, UCB_SAMPLE

BUNDLED = TASKS_CATALOG / "closed_loop"
UPSTREAM = UCB_SAMPLE
FIXTURE_TASK = "fx_101_sum"  # tests/fixtures/closed_loop: a small task of our own, for breaking on purpose
FIXTURE_EXECUTOR = "scripted/cl-fx_101_sum"  # writes results/summary.json {total 790.0, top_region East}


@pytest.fixture(scope="module")
def gateway(docker_client, tmp_path_factory):
    from clawmark.sweeps.shared_gateway import sweep_gateway

    # Bound as the pipeline binds it: the host firewall refuses 0.0.0.0 listeners to containers.
    with sweep_gateway(tmp_path_factory.mktemp("ledgers")) as server:
        yield server


@pytest.fixture
def store(tmp_path):
    from clawmark.results import ResultStore

    return ResultStore(tmp_path / "results")


@pytest.fixture
def cassettes(tmp_path, monkeypatch):
    """A cassette folder searched before the bundled one; `write(name, steps)` adds a cassette."""
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", os.pathsep.join([str(folder), str(FIXTURES / "cassettes")]))

    def write(name: str, steps: list[dict]) -> str:
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}, allow_unicode=True))
        return f"scripted/{name}"

    return write


def bundled_task(task_id: str):
    return next(t for t in load_tasks(BUNDLED) if t.task_id == task_id)


def copied_task(tmp_path: Path, task_id: str = FIXTURE_TASK) -> Path:
    """A one-folder copy of a fixture (or bundled) task, to edit; load it with load_task(path)."""
    fixture = FIXTURES / "closed_loop" / task_id
    source = fixture if fixture.is_dir() else bundled_task(task_id).package_dir
    dest = tmp_path / "tasks" / task_id
    shutil.copytree(source, dest)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def upstream_task(category: str, task_id: str):
    return load_task(UPSTREAM / "tasks" / category / f"{task_id}.yaml")


def attempt(task, model: str, store, gateway, claw: str = "reference", sweep_id: str = "cltest", **config):
    from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, run_closed_loop_attempt

    return run_closed_loop_attempt(task, claw, model, 0, store, sweep_id, gateway,
                                   config=ClosedLoopAttemptConfig(**config))


def cycle_file(row, turn: int, name: str) -> Path:
    return Path(row.artifacts_dir) / "cycles" / str(turn) / name


def cycle_json(row, turn: int, name: str):
    return json.loads(cycle_file(row, turn, name).read_text(encoding="utf-8"))


def tool_outputs(row, turn: int) -> list[str]:
    messages = cycle_json(row, turn, "transcript/reference-messages.json")
    return [m["content"] for m in messages if m["role"] == "tool"]


def decision(verdict: str, state: str, score: float, recoverable: bool = False, rationale: str = "scripted") -> str:
    return json.dumps({"verdict": verdict, "attempt_state": state, "recoverable": recoverable, "score": score,
                       "confidence": "high", "rationale": rationale, "missing_artifacts": [], "guidance_tags": []})


def sim_reply(feedback: str, mode: str = "instruction") -> str:
    return json.dumps({"mode": mode, "tone": "plain", "feedback": feedback, "public_points": []}, ensure_ascii=False)
