"""The seams an attempt is written against: one `ExecTarget` for every place commands run, and
the gateway and store protocols of attempts/seams.py met by the real classes."""

from __future__ import annotations

from clawmark.attempts.base import AttemptConfig, AttemptState
from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.patch import PatchAttemptConfig
from clawmark.attempts.patch_stages import PatchAttempt
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.gateway.server import GatewayServer
from clawmark.results.store import ResultStore
from clawmark.runtime.exec_target import ExecTarget, ForwardsToSandbox, NotStarted
from clawmark.runtime.sandbox import Sandbox
from clawmark.swe.environment import InstanceEnv
from clawmark.swe.shell import HostShell
from clawmark.taskenv import TaskEnv
from clawmark.webproxy import ProxiedTaskEnv


def test_every_place_commands_run_is_one_exec_target(tmp_path):
    """The four classes that run commands share the one seam (runtime/exec_target.py), checked on
    their classes (a runtime_checkable protocol asks only for the methods), and a host shell runs
    through it for real."""

    members = ("exec", "read_file", "write_file")
    for kind in (Sandbox, HostShell, TaskEnv, InstanceEnv, ProxiedTaskEnv):
        assert all(callable(getattr(kind, name, None)) for name in members), kind.__name__
    shell = HostShell(tmp_path)
    assert isinstance(shell, ExecTarget) and not isinstance(object(), ExecTarget)
    shell.write_file(str(tmp_path / "note"), b"hi", 0o600)
    assert shell.exec(["cat", "note"], timeout_s=10).stdout == "hi" and shell.read_file(str(tmp_path / "note")) == b"hi"
    assert shell.exec("echo $X", timeout_s=10, env={"X": "y"}).stdout == "y\n"
    try:
        InstanceEnv(None).exec("true", timeout_s=1)  # not started: refused, naming the environment
        raise AssertionError("an environment without a container ran a command")
    except NotStarted as exc:
        assert "InstanceEnv" in str(exc)
    assert issubclass(InstanceEnv, ForwardsToSandbox) and issubclass(TaskEnv, ForwardsToSandbox)


def test_an_attempt_is_written_against_its_seams():
    """What an attempt asks of the gateway and the store is the protocols of attempts/seams.py,
    and the real gateway and store have every method of them; both tracks share one state base."""

    for protocol, concrete in ((AttemptGateway, GatewayServer), (AttemptStore, ResultStore)):
        wanted = [name for name in vars(protocol) if not name.startswith("_")]
        assert wanted and all(callable(getattr(concrete, name, None)) for name in wanted), concrete.__name__
    assert issubclass(PatchAttempt, AttemptState) and issubclass(ClosedLoopAttempt, AttemptState)
    assert issubclass(PatchAttemptConfig, AttemptConfig) and issubclass(ClosedLoopAttemptConfig, AttemptConfig)
    assert "fallback_price" in ClosedLoopAttemptConfig.model_fields
