"""Sandbox against the real engine: limits, deadlines, networks, file copies, container death."""

from __future__ import annotations

import os
import time

import pytest

from clawmark.runtime.errors import ContainerGone, ExecTimeout, OutOfMemory
from clawmark.runtime.images import ensure_image
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def python_image(docker_client) -> str:
    return ensure_image("python")


def sandbox(image: str, **overrides) -> Sandbox:
    return Sandbox.provision(SandboxConfig(image=image, labels={"clawmark.test": "runtime"}, **overrides))


def test_limits_and_labels_reach_the_engine(python_image, docker_client):
    with sandbox(python_image, cpus=0.5, memory_mb=256, pids_limit=64, lifetime_seconds=120) as sb:
        attrs = docker_client.containers.get(sb.container_id).attrs
        host = attrs["HostConfig"]
        assert (host["NanoCpus"], host["Memory"], host["MemorySwap"], host["PidsLimit"]) == (
            500_000_000, 256 * 2**20, 256 * 2**20, 64)
        labels = attrs["Config"]["Labels"]
        assert labels["clawmark.managed"] == "true" and labels["clawmark.test"] == "runtime"
        assert labels["clawmark.owner_pid"] == str(os.getpid())
        assert attrs["Config"]["Cmd"] == ["sleep", "120"]


def test_exec_reports_exit_code_and_separate_streams(python_image):
    with sandbox(python_image) as sb:
        result = sb.exec("echo out; echo err >&2; exit 3", timeout_s=30)
        listed = sb.exec(["python3", "-c", "import sys; print(sys.argv[1:])", "a b", "c"], timeout_s=30)
    assert (result.exit_code, result.stdout, result.stderr, result.timed_out) == (3, "out\n", "err\n", False)
    assert listed.stdout == "['a b', 'c']\n"


def test_output_is_capped_keeping_head_and_tail(python_image):
    with sandbox(python_image, max_output_bytes=10_000) as sb:
        result = sb.exec("python3 -c \"print('HEAD' + 'x' * 100000 + 'TAIL')\"", timeout_s=30)
    assert result.truncated and result.exit_code == 0
    assert result.stdout.startswith("HEAD") and result.stdout.rstrip().endswith("TAIL")
    assert len(result.stdout) < 11_000


def test_deadline_kills_the_whole_process_tree(python_image):
    with sandbox(python_image) as sb:
        result = sb.exec("sleep 301 & setsid sleep 302 & sleep 303; echo never", timeout_s=1.0)
        survivors = sb.exec("ps -eo args | grep -E '^sleep 30[123]' || true", timeout_s=30).stdout
    assert result.timed_out and result.exit_code is None and "never" not in result.stdout
    assert survivors == ""


def test_deadline_raises_only_when_asked(python_image):
    with sandbox(python_image) as sb, pytest.raises(ExecTimeout) as caught:
        sb.exec("sleep 60", timeout_s=0.5, raise_on_timeout=True)
    assert caught.value.result.timed_out


def test_memory_hog_is_reported_as_oom(python_image):
    with sandbox(python_image, memory_mb=128) as sb:
        with pytest.raises(OutOfMemory) as caught:
            sb.exec("python3 -c \"b = bytearray(600 * 2**20); print(len(b))\"", timeout_s=60)
        still_alive = sb.exec("echo alive", timeout_s=30)
        swallowed = sb.exec("python3 -c 'bytearray(600 * 2**20)' || echo child died", timeout_s=60)
        kills = sb.oom_kill_count()
    assert "OOM" in caught.value.reason and caught.value.result.exit_code == 137
    assert swallowed.stdout == "child died\n" and kills == 2
    assert still_alive.stdout == "alive\n"


def test_killed_container_raises_container_gone(python_image, docker_client):
    with sandbox(python_image) as sb:
        docker_client.containers.get(sb.container_id).kill()
        with pytest.raises(ContainerGone) as caught:
            sb.exec("true", timeout_s=30)
    assert "exit code 137" in caught.value.reason


def test_a_command_cut_by_a_container_kill_the_engine_records_late_is_container_gone(python_image, docker_client):
    """Under load an exec ends (137) a moment before the engine marks its killed container
    stopped; that moment must not turn a host kill into a command that simply printed nothing."""
    import threading

    with sandbox(python_image) as sb:
        container = docker_client.containers.get(sb.container_id)
        late_kill = threading.Timer(0.5, container.kill)  # the engine records the stop after the exec ended
        late_kill.start()
        with pytest.raises(ContainerGone) as caught:
            sb.exec("kill -9 $$", timeout_s=30)
        late_kill.join()
    assert caught.value.result.exit_code == 137 and "exit code 137" in caught.value.reason


def test_a_command_that_kills_itself_in_a_live_container_is_a_result(python_image):
    with sandbox(python_image) as sb:
        assert sb.exec("kill -9 $$", timeout_s=30).exit_code == 137  # no container death: a measured exit
        assert sb.exec("echo alive", timeout_s=30).stdout == "alive\n"


def test_a_command_cut_by_end_processes_returns_at_once_and_the_container_lives_on(python_image):
    """The harness's own stop (a claw past its deadline) is no death to investigate: the cut exec
    returns its 137 without waiting for the engine to record a container stop that will not come;
    a command killed later by anything else is looked into again."""
    import threading

    with sandbox(python_image) as sb:
        asked, death_reason = [], sb._death_reason
        sb._death_reason = lambda: asked.append(1) or death_reason()
        cut: list = []
        # one process, no shell: a shell could outlive its killed child by a moment and exit 0
        worker = threading.Thread(target=lambda: cut.append(sb.exec(["sleep", "600"], timeout_s=120)))
        worker.start()
        assert _eventually(lambda: "sleep 600" in sb.exec("ps -eo args", timeout_s=30).stdout, patience_s=30)
        sb.end_processes()
        worker.join(60)
        assert not worker.is_alive() and cut[0].exit_code == 137 and asked == []
        assert sb.exec("ps -eo args", timeout_s=30).stdout.count("sleep 600") == 0
        assert sb.exec("kill -9 $$", timeout_s=30).exit_code == 137 and asked  # not ours: the engine is asked
        assert sb.exec("echo alive", timeout_s=30).stdout == "alive\n"


def test_container_exits_by_itself_after_its_lifetime(python_image, docker_client):
    with sandbox(python_image, lifetime_seconds=1) as sb:
        container = docker_client.containers.get(sb.container_id)
        container.wait(timeout=120)  # returns once it stopped; the bound is patience, not a speed claim
        container.reload()
        assert container.status == "exited" and container.attrs["State"]["ExitCode"] == 0
        with pytest.raises(ContainerGone):
            sb.exec("true", timeout_s=30)


def test_runs_as_the_requested_non_root_user(python_image):
    with sandbox(python_image, user="1000:1000", workdir="/tmp") as sb:
        ids = sb.exec("id -u; id -g; pwd", timeout_s=30).stdout.split()
        sb.write_file("/work/made/owned.txt", b"x")
        owner = sb.exec(["stat", "-c", "%u:%g", "/work/made", "/work/made/owned.txt"], timeout_s=30).stdout.split()
        can_write = sb.exec("touch /work/made/new && echo yes", timeout_s=30).stdout
    assert ids == ["1000", "1000", "/tmp"] and owner == ["1000:1000", "1000:1000"] and can_write == "yes\n"


def test_teardown_removes_the_container(python_image, docker_client):
    import docker

    sb = sandbox(python_image)
    sb.teardown()
    sb.teardown()
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(sb.container_id)


def test_failed_start_leaves_no_container(python_image, docker_client, tmp_path):
    import docker

    label = "clawmark.test=failed-start"  # create succeeds, start fails (a file mounted over a folder)
    (tmp_path / "a-file").write_text("not a folder\n")
    with pytest.raises(docker.errors.APIError, match="start"):
        Sandbox.provision(SandboxConfig(image=python_image, volumes={str(tmp_path / "a-file"): {"bind": "/usr", "mode": "ro"}},
                                        labels={"clawmark.test": "failed-start"}))
    assert docker_client.containers.list(all=True, filters={"label": label}, ignore_removed=True) == []


def test_missing_image_is_a_typed_error():
    from clawmark.runtime.errors import ImageMissing

    with pytest.raises(ImageMissing, match="not present"):
        Sandbox.provision(SandboxConfig(image="clawmark/does-not-exist:000000000000"))


def test_exec_workdir_env_and_login_shell_keep_the_callers_path(python_image):
    with sandbox(python_image, env={"FROM_CONFIG": "c"}) as sb:
        result = sb.exec("pwd; echo $FROM_CONFIG $FROM_EXEC; echo $PATH", timeout_s=30, workdir="/usr",
                         env={"FROM_EXEC": "e", "PATH": "/custom/bin:/usr/bin:/bin"})
    assert result.stdout.splitlines() == ["/usr", "c e", "/custom/bin:/usr/bin:/bin"]


def test_fork_bomb_cannot_outlive_its_deadline(python_image, docker_client):
    # Either the in-container kill wins (tree gone, sandbox usable) or, when the bomb holds
    # every pid, the container is killed and reported: the deadline holds in both cases.
    with sandbox(python_image, pids_limit=64) as sb:
        try:
            result, container_killed = sb.exec("bomb() { bomb | bomb & }; bomb; sleep 100", timeout_s=2), False
        except ContainerGone as gone:
            result, container_killed = gone.result, True
        if container_killed:
            assert docker_client.containers.get(sb.container_id).status != "running"
        else:
            assert _eventually(lambda: sb.exec("ps -eo args | grep -c '^sleep 100' || true",
                                               timeout_s=30).stdout.strip() == "0")
    assert result.timed_out


def test_command_that_leaves_a_background_child_returns_when_it_exits(python_image):
    with sandbox(python_image) as sb:
        result = sb.exec("sleep 120 & echo started", timeout_s=60)
        child_alive = sb.exec("ps -eo args | grep -c '^sleep 120'", timeout_s=30).stdout.strip()
    assert (result.exit_code, result.stdout, result.timed_out) == (0, "started\n", False)
    assert child_alive == "1"  # it returned while the child it left still runs


def _eventually(check, patience_s: float = 60.0) -> bool:
    """Poll `check` until it holds; the bound is patience for a loaded machine, not a speed claim."""
    give_up = time.monotonic() + patience_s
    while not check():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.2)
    return True


def test_output_the_engine_delivers_after_the_exit_is_still_read(python_image, monkeypatch):
    """A loaded engine reports the exit before it has copied the output (CI: `git diff`'s two lines
    came after the drain and the step read an empty stdout). Here the stream is held back 2 s,
    four times the drain, and nothing is lost."""
    from clawmark.runtime import execution

    real_frames = execution.frames_iter

    def late_frames(sock, tty):
        time.sleep(2.0)
        yield from real_frames(sock, tty)

    with sandbox(python_image) as sb:
        monkeypatch.setattr(execution, "frames_iter", late_frames)
        result = sb.exec("printf '/tmp/tmp.x 1234\\n'", timeout_s=60)
    assert (result.exit_code, result.stdout) == (0, "/tmp/tmp.x 1234\n")


def test_end_processes_spends_an_exec_only_when_one_ran_since_the_last_end(python_image, monkeypatch):
    """Only an exec starts a process in the container (its lifetime command aside): a claw that ran
    nothing there (nop) costs no kill exec, and one that left a process behind has it ended."""
    import clawmark.runtime.sandbox as sandbox_module

    kills: list[list[str]] = []
    real_run_exec = sandbox_module.run_exec

    def counting_run_exec(api, container_id, argv, *args, **kwargs):
        if argv[:2] == ["sh", "-c"] and "kill -KILL" in argv[2]:
            kills.append(argv)
        return real_run_exec(api, container_id, argv, *args, **kwargs)

    monkeypatch.setattr(sandbox_module, "run_exec", counting_run_exec)
    with sandbox(python_image) as sb:
        sb.end_processes()
        assert kills == []  # nothing was ever run in it
        sb.exec("nohup sleep 600 >/dev/null 2>&1 &", timeout_s=30)
        sb.end_processes()
        sb.end_processes()  # nothing ran since the first end
        assert len(kills) == 1
        assert "sleep 600" not in sb.exec("ps -eo args", timeout_s=30).stdout
        sb.end_processes()  # the ps above was an exec: ended again
        assert len(kills) == 2
