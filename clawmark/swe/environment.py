"""The container a claw works in: the instance image, /testbed on the base commit, history past
the base stripped and verified (an instance that still leaks is refused), build output ignored.

Claw homes live outside /testbed (the claw adapters' job); whatever persona or memory files
still land in the tree are dropped from the patch by `patch_clean`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from clawmark.runtime.engine import shared_client
from clawmark.runtime.exec_target import ForwardsToSandbox
from clawmark.runtime.execution import ExecResult
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.swe.history_strip import REPO_DIR, global_gitignore_command, prepare_history, verify_history
from clawmark.swe.instance_image import instance_image
from clawmark.swe.shell import q, run_step
from clawmark.swe.stripped_image import stripped_image

if TYPE_CHECKING:
    from clawmark.catalog.swe import SweInstance


class InstanceEnvConfig(BaseModel):
    """Limits and wiring of an instance container (Claw-SWE-Bench defaults)."""

    memory_mb: int = Field(8192, gt=0, description="Memory cap; swap is off beyond it.")
    cpus: float = Field(1.0, gt=0, description="CPU share of the container.")
    pids_limit: int = Field(300, gt=0, description="Max processes/threads.")
    network: Literal["none", "gateway"] = Field("none", description="'gateway' only when a claw calls the model gateway.")
    lifetime_seconds: int = Field(4 * 3600, gt=0, description="The container exits by itself after this long.")
    user: str | None = Field(None, description="User for execs; None = the image default (root).")
    env: dict[str, str] = Field(default_factory=dict, description="Environment of the container.")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra labels (sweep, cell, attempt).")
    volumes: dict = Field(default_factory=dict, description="Extra mounts, e.g. a claw home outside /testbed.")
    extra_hosts: dict[str, str] = Field(default_factory=dict, description="/etc/hosts entries.")


def fix_commits(instance: SweInstance) -> list[str]:
    """Known fix commit ids of a row (clawmark's `fix_commit` extra), probed by the leak check."""
    extras = getattr(instance, "model_extra", None) or {}
    value = extras.get("fix_commit") or extras.get("fix_commits") or []
    return [value] if isinstance(value, str) else list(value)


class InstanceEnv(ForwardsToSandbox):
    """`with InstanceEnv(instance) as sandbox:` a prepared instance container, always torn down.

    Raises `InstanceImageMissing` / `InstanceUnbuildable` (no image), `HistoryLeak` (refused),
    `ShellStepFailed` (git step failed) or the runtime's errors; the container never outlives it.
    """

    def __init__(self, instance: SweInstance, config: InstanceEnvConfig | None = None, progress=None) -> None:
        self.instance, self.config, self.progress = instance, config or InstanceEnvConfig(), progress
        self.sandbox: Sandbox | None = None
        self.image_id = ""  # the instance image's, even when the container starts from its stripped image

    def __enter__(self) -> Sandbox:
        self.sandbox, self.image_id = provision_instance(self.instance, self.config, self.progress)
        return self.sandbox

    def __exit__(self, *exc_info) -> None:
        if self.sandbox is not None:
            self.sandbox.teardown()
            self.sandbox = None


# Leak checks passed in this process, by (image id, base, known future commits, mounts): the check
# reads only what a fresh container of the image holds, and an image id names its content, so
# every later attempt of the instance starts from a repository already found clean (one container
# exec less per attempt). A failed check is never kept: the attempt is refused each time.
_CLEAN_HISTORY: set[tuple[str, str, tuple[str, ...], str]] = set()


def provision_instance(instance: SweInstance, config: InstanceEnvConfig, progress=None) -> tuple[Sandbox, str]:
    """Start the container and prepare /testbed; tears the container down if preparation fails.
    Returns it and the instance image's id. The container starts from the instance's stripped
    image when one can be built, and then only the leak check runs in it, once per image."""
    image = instance_image(instance, progress)
    engine_image = shared_client().images.get(image)
    stripped = stripped_image(instance.instance_id, engine_image, instance.base_commit, progress)
    sandbox = Sandbox.provision(SandboxConfig(
        image=stripped or image, cpus=config.cpus, memory_mb=config.memory_mb, pids_limit=config.pids_limit,
        network=config.network, user=config.user, workdir=REPO_DIR, env=config.env,
        labels={"clawmark.role": "swe-instance", "clawmark.instance": instance.instance_id[:60], **config.labels},
        lifetime_seconds=config.lifetime_seconds, volumes=config.volumes, extra_hosts=config.extra_hosts))
    try:
        root = _AsRoot(sandbox)
        if stripped:
            known_future = tuple(fix_commits(instance))
            checked = (sandbox.image_id, instance.base_commit, known_future, repr(sorted(config.volumes.items())))
            if not sandbox.image_id or checked not in _CLEAN_HISTORY:
                verify_history(root, instance.base_commit, known_future)
                _CLEAN_HISTORY.add(checked)
        else:
            prepare_history(root, instance.base_commit, fix_commits(instance), first=global_gitignore_command())
        if config.user:  # the claw edits /testbed as its own user
            run_step(root, "chown /testbed", f"chown -R {q(config.user)} {REPO_DIR}", 600.0, "/")
    except BaseException:
        sandbox.teardown()
        raise
    return sandbox, engine_image.id


class _AsRoot(ForwardsToSandbox):
    """The sandbox seen as a root shell (system git config), whatever user the claw runs as."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def exec(self, cmd: str | list[str], timeout_s: float, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        return self.running().exec(cmd, timeout_s=timeout_s, workdir=workdir, env=env, user="0")
