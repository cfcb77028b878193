"""Task runtime against the real engine: a package lands at the paths prompts name, skills are
readable by the executor, services are not, oneshot seeds are the executor's, results copy out."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnv, TaskEnvConfig

from tests.support.taskenv_fixtures import CLOSED_LOOP, as_executor, as_root, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

INBOX = CLOSED_LOOP / "zh_205_inbox_digest"


@pytest.fixture(scope="module")
def inbox_env(workstation, tmp_path_factory):
    logs = tmp_path_factory.mktemp("inbox-logs")
    env = TaskEnv(load_task(INBOX), TaskEnvConfig(image=workstation, labels={"clawmark.test": "taskenv"}), logs)
    with env as sandbox:
        yield env, sandbox, logs


def test_executor_is_the_unprivileged_user(inbox_env):
    _env, sandbox, _logs = inbox_env
    assert as_executor(sandbox, "id -u; id -g; id -un").stdout.split() == ["1000", "1000", "claw"]


def test_sources_land_byte_exact_and_belong_to_the_executor(inbox_env):
    _env, sandbox, _logs = inbox_env
    expected = (INBOX / "sources" / "说明.txt").read_bytes()
    assert sandbox.read_file("/tmp_workspace/clawbench/sources/说明.txt") == expected
    owners = as_executor(sandbox, "stat -c %U /tmp_workspace/clawbench/sources/说明.txt /tmp_workspace/results "
                                  "/tmp_workspace/clawbench/logs").stdout.split()
    assert owners == ["claw", "claw", "claw"]
    wrote = as_executor(sandbox, "echo ok > /tmp_workspace/results/probe.txt && echo ok > /tmp_workspace/clawbench/logs/agent.log")
    assert wrote.exit_code == 0, wrote.stderr


def test_skill_is_readable_by_the_executor(inbox_env):
    _env, sandbox, _logs = inbox_env
    expected = (INBOX / "skills" / "mail-digest" / "SKILL.md").read_text()
    read = as_executor(sandbox, "cat /root/skills/mail-digest/SKILL.md; ls /root/skills")
    assert read.exit_code == 0 and read.stdout == expected + "mail-digest\n"
    listing_root = as_executor(sandbox, "ls /root")
    assert listing_root.exit_code != 0 and "Permission denied" in listing_root.stderr


def test_services_folder_is_unreadable_by_the_executor(inbox_env):
    _env, sandbox, _logs = inbox_env
    for cmd in ("ls /opt/clawbench", "ls /opt/clawbench/services",
                "cat /opt/clawbench/services/seed-inbox/seed.py"):
        result = as_executor(sandbox, cmd)
        assert result.exit_code != 0 and "Permission denied" in result.stderr, cmd
    as_root_view = as_root(sandbox, "stat -c '%a %U' /opt/clawbench; cat /opt/clawbench/services/seed-inbox/seed.py")
    assert as_root_view.stdout.startswith("700 root\n")
    assert as_root_view.stdout.split("\n", 1)[1] == (INBOX / "services" / "seed-inbox" / "seed.py").read_text()


def test_oneshot_seed_and_background_service_serve_the_executor(inbox_env):
    _env, sandbox, _logs = inbox_env
    mail = as_executor(sandbox, "cat /tmp_workspace/clawbench/inbox/002.eml && echo more >> /tmp_workspace/clawbench/inbox/002.eml")
    assert mail.exit_code == 0 and "支付网关方案评审" in mail.stdout
    events = as_executor(sandbox, "curl -s http://127.0.0.1:18766/events | jq -r '.[0].date'")
    assert events.stdout.strip() == "2026-04-07"


def test_container_carries_limits_and_labels(inbox_env, docker_client):
    _env, sandbox, _logs = inbox_env
    attrs = docker_client.containers.get(sandbox.container_id).attrs
    labels, host = attrs["Config"]["Labels"], attrs["HostConfig"]
    assert labels["clawmark.role"] == "task-env" and labels["clawmark.task"] == "zh_205_inbox_digest"
    assert labels["clawmark.network_policy"] == "full" and labels["clawmark.test"] == "taskenv"
    assert (host["NanoCpus"], host["Memory"], host["PidsLimit"]) == (2 * 10**9, 4096 * 2**20, 1024)
    assert attrs["Config"]["Cmd"][0] == "sleep" and int(attrs["Config"]["Cmd"][1]) > 900


def test_snapshot_results_copies_files_and_drops_links_out(inbox_env, tmp_path):
    env, sandbox, _logs = inbox_env
    as_executor(sandbox, "mkdir -p /tmp_workspace/results/sub && echo '{\"n\": 1}' > /tmp_workspace/results/sub/a.json"
                         " && ln -sf /etc/passwd /tmp_workspace/results/passwd")
    files = env.snapshot_results(tmp_path / "results")
    assert "sub/a.json" in files and "passwd" not in files
    assert (tmp_path / "results" / "sub" / "a.json").read_text() == '{"n": 1}\n'
    assert env.skipped_links == ["results/passwd"]


def test_snapshot_mode_ships_snapshot_sources_only_when_asked(workstation, tmp_path):
    task = load_task(CLOSED_LOOP / "en_105_ticket_sync")
    listed = {}
    for snapshot in (False, True):
        config = TaskEnvConfig(image=workstation, snapshot=snapshot, network_policy="none")
        with TaskEnv(task, config, tmp_path / str(snapshot)) as sandbox:
            listed[snapshot] = as_executor(sandbox, "ls /tmp_workspace/clawbench/sources").stdout.split()
    assert listed == {False: [], True: ["tickets_snapshot.json"]}


def test_base_skills_install_for_every_task_and_task_skills_win(workstation, tmp_path):
    base = make_package(tmp_path / "base", "skills_src", files={
        "skills/apt-package-manager/SKILL.md": "base apt skill\n",
        "skills/shared/SKILL.md": "base version\n"}) / "skills"
    package = make_package(tmp_path, "skills_task", files={"skills/shared/SKILL.md": "task version\n",
                                                           "skills/shared/run.sh": "echo run\n"},
                           skills=["shared"])
    (package / "skills" / "shared" / "run.sh").chmod(0o700)  # owner-only on the host
    with task_env(package, workstation, tmp_path / "logs", network_policy="none",
                  base_skills=[base / "apt-package-manager", base / "shared"]) as sandbox:
        read = as_executor(sandbox, "cat /root/skills/apt-package-manager/SKILL.md /root/skills/shared/SKILL.md; "
                                    "bash /root/skills/shared/run.sh; test -x /root/skills/shared/run.sh && echo x")
    assert read.stdout == "base apt skill\ntask version\nrun\nx\n"
    record = json.loads((tmp_path / "logs" / "taskenv.json").read_text())
    assert record["skills"] == ["apt-package-manager", "shared"] and record["skills_missing"] == []


def test_snapshot_of_a_removed_results_folder_is_empty(workstation, tmp_path):
    env = task_env(make_package(tmp_path, "results_gone"), workstation, tmp_path / "logs", network_policy="none")
    with env as sandbox:
        as_executor(sandbox, "rm -rf /tmp_workspace/results")
        files = env.snapshot_results(tmp_path / "copy")
    assert files == [] and (tmp_path / "copy").is_dir() and env.skipped_links == []


def test_a_declared_skill_nobody_provides_is_recorded_as_missing(workstation, tmp_path):
    package = make_package(tmp_path, "skill_absent", skills=["apt-package-manager"])
    with task_env(package, workstation, tmp_path / "logs", network_policy="none") as sandbox:
        listed = as_executor(sandbox, "ls /root/skills").stdout
    record = json.loads((tmp_path / "logs" / "taskenv.json").read_text())
    assert listed == "" and record["skills"] == [] and record["skills_missing"] == ["apt-package-manager"]
