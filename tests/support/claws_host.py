"""Helpers of the claws unit tests: a bundled instance checked out on the host, a host executor
with the sandbox's exec/read_file/write_file surface (the unit tests have no Docker; the
integration tests drive the same claws through the real Sandbox), and a live gateway."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from clawmark.catalog import load_instances
from clawmark.runtime.execution import ExecResult
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.shell import HostShell

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"
INI = "clawmark-fixtures__iniparse-py-1"


def instance(instance_id: str):
    return next(i for i in load_instances(INSTANCES) if i.instance_id == instance_id)


def checkout(inst, dest: Path) -> Path:
    """Clone the instance's bundle and check out its base commit at ``dest``."""
    subprocess.run(["git", "clone", "-q", str(inst.repo_bundle), str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", inst.base_commit], check=True)
    return dest


@dataclass
class HostExecutor:
    """Runs claw tool calls on the host in ``root`` (paths are host paths)."""

    root: Path

    def exec(self, cmd, timeout_s: float, workdir=None, env=None, user=None) -> ExecResult:
        return HostShell(self.root).exec(cmd, timeout_s=timeout_s, workdir=workdir)

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        Path(path).write_bytes(data)
        Path(path).chmod(mode)


def run_hidden_tests(inst, repo: Path, tests: list[str]) -> subprocess.CompletedProcess:
    """Apply the hidden test patch and run ``tests`` with pytest (python instances only)."""
    subprocess.run(["git", "-C", str(repo), "apply", "-"], input=inst.test_patch.encode(), check=True)
    import sys

    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                          cwd=repo, capture_output=True, text=True, timeout=120)
