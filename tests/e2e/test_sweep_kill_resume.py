"""SIGKILL of `clawmark sweep SPEC` (its own process, real Prefect and Docker) at each named point —
during provisioning, during evaluation, mid-turn, while writing the row — then the same command
again: nothing lost, nothing duplicated, only unfinished cells rerun, the killed run's containers
reaped and its partial artifact folders cleared.

Each point is reached by watching real state: the engine's create event of a container with the
sweep's label (provisioning: the executor's; evaluation: the evaluator's), the gateway ledger's
first line (mid-turn: the scripted model's next reply is still seconds away); the row's commit
point has nothing outside to watch, so `CLAWMARK_FAILPOINT=row-commit` kills there.

The sweep runs as a user runs it by default, without a Prefect server: each run starts its own
temporary one in a Prefect home of the test. The cell slots a killed run held stay counted in
that home's database while their leases died with its temporary server; the next run zeroes
them (flows/limits.py), or it would wait forever. (On a real server the leases lapse instead:
CLAWMARK_SLOT_LEASE_S.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.runtime.owner import ATTEMPT_LABEL, CELL_LABEL, SWEEP_LABEL
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SLOW_TURN = {"description": "a reference-claw turn whose second reply is seconds away (a mid-turn window)",
             "steps": [{"content": "Looking first.", "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},
                       {"content": "Nothing to change.", "latency_s": 4}]}


class Sweep:
    """The real command, run as a user runs it, killed when `kill_when` says so."""

    def __init__(self, docker_client, tmp_path: Path, client_env: dict[str, str]):
        self.docker, self.results = docker_client, tmp_path / "results"
        self.sweep_id = f"kill-{uuid.uuid4().hex[:8]}"
        cassettes = tmp_path / "cassettes"
        cassettes.mkdir()
        (cassettes / "kill-slow-turn.yaml").write_text(yaml.safe_dump(SLOW_TURN))
        self.spec = tmp_path / "kill.yaml"
        self.spec.write_text(yaml.safe_dump({
            "sweep_id": self.sweep_id, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["nop", "oracle", "reference"],
            "models": ["scripted/kill-slow-turn"], "seeds": [0, 1], "max_parallel": 1}))
        self.store = ResultStore(self.results)
        self.env = {**client_env, "CLAWMARK_CASSETTES": str(cassettes)}
        self.runs = 0

    def command(self, *extra: str, env: dict | None = None) -> subprocess.Popen:
        # Output to a file, not a pipe: the temporary Prefect server of a killed run outlives it
        # (until the next run stops it) and would hold a pipe open.
        self.runs += 1
        log = open(self.results.parent / f"run-{self.runs}.log", "w")
        return subprocess.Popen([sys.executable, "-m", "clawmark.cli.main", "sweep", str(self.spec),
                                 "--results", str(self.results), *extra], env={**self.env, **(env or {})},
                                stdout=log, stderr=subprocess.STDOUT, text=True)

    def finish(self, proc: subprocess.Popen) -> tuple[int, str]:
        proc.wait(timeout=900)
        return proc.returncode, (self.results.parent / f"run-{self.runs}.log").read_text()

    def servers(self) -> list[int]:
        """Temporary Prefect servers of this test's Prefect home still running."""
        home, found = f"PREFECT_HOME={self.env['PREFECT_HOME']}".encode(), []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and b"create_app" in (proc / "cmdline").read_bytes() \
                        and home in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
        return found

    def kill_on_create(self, proc: subprocess.Popen, role: str) -> dict[str, str]:
        """SIGKILL `proc` the moment the engine creates a `role` container of this sweep for a
        cell with no row, once another cell has committed; the container's labels."""
        events = self.docker.events(decode=True, filters={
            "type": "container", "event": "create", "label": [f"{SWEEP_LABEL}={self.sweep_id}", f"clawmark.role={role}"]})
        seen: dict[str, str] = {}

        def watch() -> None:
            for event in events:
                labels = event["Actor"]["Attributes"]
                done = self.store.completed_cells(self.sweep_id)
                if done and labels[CELL_LABEL] not in done:
                    proc.send_signal(signal.SIGKILL)
                    seen.update(labels)
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        code, output = self.finish(proc)
        events.close()
        assert code == -signal.SIGKILL and seen, f"never reached a {role} container:\n{output[-3000:]}"
        return seen

    def kill_on_first_ledger_line(self, proc: subprocess.Popen) -> Path:
        cells = self.results / "cells" / self.sweep_id
        while proc.poll() is None:
            ledgers = [p for p in cells.glob("*/ledger.jsonl") if p.stat().st_size
                       and p.parent.name not in self.store.completed_cells(self.sweep_id)]
            if ledgers:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.02)
        code, output = self.finish(proc)
        assert code == -signal.SIGKILL, f"no ledger line before the sweep ended:\n{output[-3000:]}"
        return ledgers[0].parent

    def rows(self) -> dict[str, str]:
        """cell key -> attempt id of every committed row; a duplicated row fails here."""
        frame = self.store.read(self.sweep_id)
        assert frame["cell_key"].is_unique, frame["cell_key"].tolist()
        return dict(zip(frame["cell_key"], frame["attempt_id"]))

    def leftovers(self) -> set[str]:
        return {c.id for c in self.docker.containers.list(all=True, filters={"label": f"{SWEEP_LABEL}={self.sweep_id}"},
                                                          ignore_removed=True)}


def _kept(before: dict[str, str], after: dict[str, str]) -> None:
    """Rows committed before are still there, from the same attempt: nothing lost, nothing rerun."""
    assert {k: after.get(k) for k in before} == before


def test_sigkill_at_each_point_then_resume(docker_client, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    # A fresh home migrates its database on the first start: slow on a loaded machine
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="300")
    run = Sweep(docker_client, tmp_path, env)
    try:
        _walk_the_points(run, tmp_path)
    finally:
        for pid in run.servers():  # only if the test failed midway: this test's own servers
            os.kill(pid, signal.SIGTERM)


def _walk_the_points(run: Sweep, tmp_path: Path) -> None:
    # 1. During provisioning of the second nop cell (its executor container just created).
    provisioning = run.kill_on_create(run.command(), "swe-instance")
    rows1, leaked1 = run.rows(), run.leftovers()
    killed1 = tmp_path / "results" / "cells" / run.sweep_id / provisioning[CELL_LABEL]
    assert len(rows1) == 1 and provisioning[CELL_LABEL] not in rows1 and leaked1
    assert not (killed1 / "logs" / "turn-0.json").exists()  # died before the claw's turn

    # A resume whose resolved config differs is refused, naming what differs, and touches nothing.
    changed = yaml.safe_load(run.spec.read_text())
    changed_spec = tmp_path / "changed.yaml"
    changed_spec.write_text(yaml.safe_dump({**changed, "attempt": {"eval_timeout_s": 600}}))
    refused = subprocess.run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(changed_spec), "--results",
                              str(run.results)], env=run.env, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "eval_timeout_s: 1800.0 → 600.0" in refused.stdout + refused.stderr
    # Subset, not equal: a pool worker's cell on this engine reaps every dead owner's containers
    # (flows/cell.py reap_leaked), so another test's pool may have removed what the kill left.
    assert run.leftovers() <= leaked1 and run.rows() == rows1

    # 2. During evaluation of the first oracle cell (its evaluation container just created).
    evaluation = run.kill_on_create(run.command(), "swe-eval")
    rows2, leaked2 = run.rows(), run.leftovers()
    _kept(rows1, rows2)
    assert not leaked1 & leaked2, "the resumed run did not reap the containers the killed one left"
    assert rows2[provisioning[CELL_LABEL]] != provisioning[ATTEMPT_LABEL]  # the killed cell ran again
    assert evaluation[CELL_LABEL] not in rows2 and leaked2

    # 3. Mid-turn of the first reference cell (the model answered once; the next reply is pending).
    midturn = run.kill_on_first_ledger_line(run.command())
    rows3, leaked3 = run.rows(), run.leftovers()
    _kept(rows2, rows3)
    assert not leaked2 & leaked3 and leaked3 and midturn.name not in rows3
    assert rows3[evaluation[CELL_LABEL]] != evaluation[ATTEMPT_LABEL]

    # 4. While writing the row of the cell killed mid-turn: its row.json is written, its row file is not.
    code, output = run.finish(run.command(env={"CLAWMARK_FAILPOINT": "row-commit"}))
    assert code == -signal.SIGKILL, output[-3000:]
    rows4 = run.rows()
    _kept(rows3, rows4)
    assert midturn.name not in rows4 and not leaked3 & run.leftovers()
    torn_attempt = json.loads((midturn / "row.json").read_text())["attempt_id"]

    # The same command once more: every cell exactly once, nothing of the killed runs left.
    code, output = run.finish(run.command())
    assert code == 0, output[-3000:]
    final = run.rows()
    _kept(rows4, final)
    assert len(final) == 6 and final[midturn.name] != torn_attempt
    assert not run.leftovers()
    assert not run.servers()  # each killed run's orphaned temporary server was stopped by the next
    folders = {p.name for p in (run.results / "cells" / run.sweep_id).iterdir()}
    assert folders == set(final)  # no partial folder survives
    for key, attempt in final.items():  # and each folder is its committed attempt's, not a killed one's
        assert json.loads((run.results / "cells" / run.sweep_id / key / "row.json").read_text())["attempt_id"] == attempt
    assert not list((run.results / "rows" / run.sweep_id).glob(".*.tmp"))
