"""The pool worker's image: this checkout's code installed on the python image, with a Docker
engine of its own, so a machine joins a pool with nothing but Docker (`clawmark images worker`).

Two layers, each content-hashed like every clawmark image: the dependencies (Debian's docker.io
and iptables, a venv with the project's requirements), rebuilt only when pyproject.toml changes;
and the code (what `SHIPPED` names, installed editable in /opt/clawmark so the catalog and the
recipes sit beside it as in a checkout). `code_digest` names the code the same way on the
coordinator and in the worker, so a deployment can refuse a worker running other code.
"""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

from clawmark.runtime.images import Progress, ensure_derived_image, ensure_image
from clawmark.runtime.shipped_code import code_digest, copy_shipped
from clawmark.settings import PROJECT_ROOT

CODE_ROOT = "/opt/clawmark"
DEPS_DOCKERFILE = """ARG PARENT
FROM ${PARENT}
RUN apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io iptables mount \\
 && rm -rf /var/lib/apt/lists/*
COPY requirements.txt /opt/requirements.txt
RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install -q -r /opt/requirements.txt && rm -rf /root/.cache
ENV PATH=/opt/venv/bin:$PATH PREFECT_HOME=/var/lib/clawmark/prefect CLAWMARK_HOME=/var/lib/clawmark
"""
CODE_DOCKERFILE = f"""ARG PARENT
FROM ${{PARENT}}
COPY . {CODE_ROOT}
RUN pip install -q --no-deps -e {CODE_ROOT} && rm -rf /root/.cache
LABEL clawmark.code={{digest}}
ENTRYPOINT ["{CODE_ROOT}/images/worker/entrypoint.sh"]
"""


# What the worker's own engine needs of its container, as `docker run` options. `--privileged
# --cgroupns private` gives it; so does this list where the host's engine cannot grant every
# capability (CAP_SYS_RESOURCE is missing on some CI machines, and --privileged then fails to start
# the container at all). `systempaths=unconfined` exists only in the CLI (the API's MaskedPaths).
_CAPS = ("CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE "
         "NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT "
         "SYS_ADMIN SYS_BOOT SYS_NICE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP "
         "MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ").split()  # all but SYS_RESOURCE
RUN_ARGS = [*(arg for cap in _CAPS for arg in ("--cap-add", cap)), "--cgroupns", "private",
            "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
            "--security-opt", "systempaths=unconfined", "--device-cgroup-rule", "a *:* rwm"]


def requirements(root: Path = PROJECT_ROOT) -> list[str]:
    """The project's run-time requirements (no test extras), from pyproject.toml."""
    return list(tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"])


def ensure_worker_image(root: Path = PROJECT_ROOT, progress: Progress | None = None) -> str:
    """The ref of the worker image of the code at `root`, built (or pulled) only when missing."""
    with tempfile.TemporaryDirectory(prefix="clawmark-worker-") as tmp:
        deps_context, code_context = Path(tmp) / "deps", Path(tmp) / "code"
        deps_context.mkdir()
        (deps_context / "requirements.txt").write_text("\n".join(requirements(root)) + "\n")
        deps = ensure_derived_image("worker-deps", ensure_image("python", progress), deps_context, DEPS_DOCKERFILE,
                                    progress)
        copy_shipped(root, code_context)
        dockerfile = CODE_DOCKERFILE.replace("{digest}", code_digest(root))
        return ensure_derived_image("worker", deps, code_context, dockerfile, progress)
