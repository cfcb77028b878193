"""Where a task package lands in the container, and which of its files may go there."""

from __future__ import annotations

from pathlib import Path

WORKSPACE = "/tmp_workspace"
SOURCES_DIR = "/tmp_workspace/clawbench/sources"
RESULTS_DIR = "/tmp_workspace/results"
LOGS_DIR = "/tmp_workspace/clawbench/logs"
SKILLS_DIR = "/root/skills"
PRIVATE_DIR = "/opt/clawbench"           # 0700 root: the executor cannot list or read it
SERVICES_DIR = f"{PRIVATE_DIR}/services"
SERVICE_STATE_DIR = f"{PRIVATE_DIR}/run"  # pid and exit-code files of background services
EXECUTOR_NAME = "claw"

# Run as root once the container is up; idempotent, so it also fits images that already
# have the user and folders (the workstation) and bare ones (python) alike.
PREPARE_SCRIPT = f"""set -e
uid="$1"; gid="$2"
if ! getent group "$gid" >/dev/null; then groupadd -g "$gid" {EXECUTOR_NAME}; fi
if ! getent passwd "$uid" >/dev/null; then useradd -m -u "$uid" -g "$gid" -s /bin/bash {EXECUTOR_NAME}; fi
mkdir -p {SOURCES_DIR} {RESULTS_DIR} {LOGS_DIR} {SKILLS_DIR} {SERVICES_DIR} {SERVICE_STATE_DIR}
chown -R "$uid:$gid" {WORKSPACE}
chmod 711 /root
chmod 755 {SKILLS_DIR}
chown -R 0:0 {PRIVATE_DIR}
chmod 700 {PRIVATE_DIR} {SERVICES_DIR} {SERVICE_STATE_DIR}
"""


def folder_files(folder: Path, hidden: list[Path], prefix: str = "") -> dict[str, Path]:
    """Every file under `folder` by relative name (prefixed), minus anything hidden."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {prefix + p.relative_to(folder).as_posix(): p for p in files if not is_hidden(p, hidden)}


def is_hidden(path: Path, hidden: list[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved == h.resolve() or resolved.is_relative_to(h.resolve()) for h in hidden)
