"""Invariant 1 on the closed-loop track, looked at DURING an executor turn: the executor's
container holds no hidden file (eval_rule.md, references, checks, pre_exec scripts, .privacy),
no byte of reference content (a canary planted in them), no secret in its environment and no
mount of the task package; the check container, which does hold the references, has no network
at all, so nothing in the executor's container can reach it.

A watcher thread inspects the task container as root while the scripted executor waits between
two steps (the turn's marker file exists, its deliverable does not yet)."""

from __future__ import annotations

import threading

import pytest
import yaml

from clawmark.catalog import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    FIXTURE_TASK,
    attempt,
    cassettes,
    copied_task,
    cycle_json,
    decision,
    gateway,
    store,
    tool_outputs,
)
from tests.support.marked_container import wait_for_marked

pytestmark = pytest.mark.docker
CANARY = "HIDDEN-CANARY-5c1e9d"  # in eval_rule.md and answer.json of the fixture
SECRET = "HIDDEN-CANARY-privacy-77"
HIDDEN_NAMES = ("eval_rule.md", "answer.json", "checks.yaml", "probe_net.py", "host_setup.sh", ".privacy")
PROBE = "import os\nprint('interfaces=' + ','.join(sorted(os.listdir('/sys/class/net'))))\n"


def _hidden_task(tmp_path):
    folder = copied_task(tmp_path, FIXTURE_TASK)
    (folder / "references" / "probe_net.py").write_text(PROBE)
    (folder / "references" / "checks.yaml").write_text(yaml.safe_dump({"checks": [
        {"id": "probe_net", "kind": "script", "script": "references/probe_net.py"}]}))
    (folder / "host_setup.sh").write_text(f"test -n \"$FX_SECRET\" && echo {CANARY}-pre-exec-ran\n")
    (folder / ".privacy").write_text("FX_SECRET\n")
    spec = yaml.safe_load((folder / "task.yaml").read_text())
    spec["pre_exec"] = ["host_setup.sh"]
    (folder / "task.yaml").write_text(yaml.safe_dump(spec))
    return load_task(folder)


class Watcher(threading.Thread):
    """Waits for the task container's turn marker, then lists it as root. Other containers carry
    the task's label too (the set-up capture, the checks, other tests' attempts) and may stop
    between the listing and the look: those are passed over. Looks until the attempt has ended."""

    def __init__(self, docker_client):
        super().__init__(daemon=True)
        self.docker, self.seen, self.attempt_ended = docker_client, {}, threading.Event()

    def run(self) -> None:
        container = wait_for_marked(self.docker, [f"clawmark.task={FIXTURE_TASK}"], "/tmp_workspace/results/.turn-started",
                                    1800, stop=self.attempt_ended, poll_s=0.3)  # the attempt's end stops it first
        if container is not None:
            self._inspect(container)

    def _root(self, container, command: str) -> tuple[int, str]:
        code, out = container.exec_run(["bash", "-c", command], user="0")
        return code, out.decode("utf-8", errors="replace")

    def _inspect(self, container) -> None:
        container.reload()
        self.seen = {
            "during_turn": self._root(container, "test -e /tmp_workspace/results/summary.json")[0] != 0,
            "added": [c["Path"] for c in container.diff() or []],
            "files": self._root(container, "find / -xdev -not -path '/proc/*' -not -path '/sys/*' 2>/dev/null")[1],
            "canary_hits": self._root(container, f"grep -rlF {CANARY} / --exclude-dir=proc --exclude-dir=sys "
                                                 "--exclude-dir=dev 2>/dev/null | head")[1],
            "environ": self._root(container, "cat /proc/1/environ | tr '\\0' '\\n'; env")[1],
            "env_config": container.attrs["Config"]["Env"] or [],
            "mounts": container.attrs["Mounts"],
            "proc_mounts": self._root(container, "cat /proc/mounts")[1],
            "docker_socket": self._root(container, "test -S /var/run/docker.sock")[0] == 0,
        }


def test_executor_container_holds_nothing_hidden_during_a_turn(tmp_path, store, gateway, cassettes, docker_client,
                                                              monkeypatch):  # noqa: F811
    monkeypatch.setenv("FX_SECRET", SECRET)
    task = _hidden_task(tmp_path)
    executor = cassettes("exec-probe", [
        {"tool_calls": [{"name": "bash", "arguments": {"command":
            "touch /tmp_workspace/results/.turn-started; id -u; env; cat /proc/mounts; "
            f"grep -rlF {CANARY} / --exclude-dir=proc --exclude-dir=sys 2>/dev/null | head; ls -la /opt/clawbench"}}]},
        {"latency_s": 8, "tool_calls": [{"name": "bash", "arguments": {"command":
            "echo '{\"total\": 790.0, \"top_region\": \"East\"}' > /tmp_workspace/results/summary.json"}}]},
        {"content": "Saved."},
    ])
    supervisor = cassettes("sup-probe", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    watcher = Watcher(docker_client)
    watcher.start()
    try:
        row = attempt(task, executor, store, gateway, supervisor_model=supervisor)
    finally:
        watcher.attempt_ended.set()
    watcher.join(timeout=60)
    assert row.status is Status.PASS, row.error_message
    seen = watcher.seen
    assert seen and seen["during_turn"], "the watcher must have looked while the turn was running"

    paths = seen["files"].splitlines() + seen["added"]
    assert [p for p in paths if p.rsplit("/", 1)[-1] in HIDDEN_NAMES] == []
    assert any(p.endswith("/clawbench/sources/sales.csv") for p in paths)  # the listing is real
    assert seen["canary_hits"].strip() == ""
    environment = seen["environ"] + "\n".join(seen["env_config"])
    assert SECRET not in environment and "FX_SECRET" not in environment and CANARY not in environment
    package = str(task.package_dir)
    assert all(package not in (m.get("Source") or "") for m in seen["mounts"])
    assert package not in seen["proc_mounts"] and not seen["docker_socket"]

    probe_output, = tool_outputs(row, 0)[:1]
    assert probe_output.splitlines()[1] == "1000"  # the executor is not root
    assert CANARY not in probe_output and SECRET not in probe_output
    assert "Permission denied" in probe_output  # /opt/clawbench (services) is closed to it

    check, = cycle_json(row, 0, "checks.json")
    assert check["passed"] and check["detail"] == "interfaces=lo"  # the check container has no network
