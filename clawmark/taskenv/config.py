"""How a task container is made: image, network policy, limits, snapshot mode, base skills."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv.desktop import wants_desktop

NetworkPolicy = Literal["none", "registries-only", "full"]
BASE_SKILLS_DIR = TASKS_CATALOG / "base_skills"
# Upstream's configs/base_skills.json, in every upstream-layout task's container (ours, same names and contracts).
UPSTREAM_BASE_SKILLS = ("apt-package-manager", "agent-browser-control", "web-search", "duckduckgo-search",
                        "desktop-control")
# Who the executor is. Both keep the container's least-privilege profile (capabilities dropped,
# no-new-privileges: clawmark.runtime.privileges); `root` is upstream's executor (tasks
# apt-install Zotero, gh, tesseract...), the default for upstream-layout tasks.
RuntimeProfile = Literal["root-least", "user-least"]
ExecutorChoice = Literal["auto", "root", "user"]
WORKSTATION_RECIPE = "workstation"
EXECUTOR_USER = "1000:1000"
ROOT_USER = "0:0"
# Upstream's `--add-host` aliases: both name the host (103_34's pre_exec serves match-stream.local there).
HOST_ALIASES = {"host.docker.internal": "host-gateway", "match-stream.local": "host-gateway"}
BROWSER_HEADED = "AGENT_BROWSER_HEADED"
# Upstream's accessibility defaults (runtime-base.Dockerfile ENV, start-desktop.sh): GTK and Qt apps
# join the AT-SPI bus, so dogtail-style tools can address their widgets by name. Set where a desktop runs.
A11Y_ENV = {"NO_AT_BRIDGE": "0", "GTK_MODULES": "gail:atk-bridge", "QT_ACCESSIBILITY": "1"}
SHM_SIZE_MB = 2048  # upstream's --shm-size 2g: Chromium's renderers crash on large pages with Docker's 64 MB


class TaskEnvConfig(BaseModel):
    """One task container. Closed-loop tasks default to the `full` network (upstream's)."""

    image: str | None = Field(None, description="Image ref; None = the workstation recipe, built when missing.")
    network_policy: NetworkPolicy = Field(
        "full", description="none: gateway only; registries-only: gateway + package registries through "
        "the host's registry proxy (HTTP(S)_PROXY); full: bridge. The gateway is reachable in all three.")
    cpus: float = Field(2.0, gt=0, description="CPU share of the container.")
    memory_mb: int = Field(4096, gt=0, description="Memory cap; swap is off beyond it.")
    pids_limit: int = Field(1024, gt=0, description="Max processes/threads (services and claw together).")
    lifetime_seconds: int | None = Field(
        None, gt=0, description="The container exits by itself after this long; None = the task's "
        "max_total_seconds + service_timeout_s per service + 1800.")
    snapshot: bool = Field(False, description="Snapshot mode: ship *_snapshot.json sources (task_snapshot prompt).")
    base_skills: list[Path] | None = Field(None, description="Skill folders installed for every task; None = "
                                           "upstream's base skills for upstream-layout tasks, none for clawmark's own.")
    service_timeout_s: float = Field(1200, gt=0, description="Deadline of one oneshot service.")
    service_ready_s: float = Field(60, gt=0, description="How long a background service may take to listen on its port.")
    pre_exec_timeout_s: float = Field(600, gt=0, description="Deadline of one host-side pre_exec script.")
    executor_user: str | None = Field(None, pattern=r"^\d+:\d+$", description="uid:gid claws act as (created "
                                      "when missing); None = by the task's layout (`runtime_profile`).")
    env: dict[str, str] = Field(default_factory=dict, description="Container environment (never task secrets).")
    credentials: dict[str, str] = Field(default_factory=dict, repr=False, exclude=True, description="The task's "
                                        "`.privacy` values: the pre_exec's and the container's environment, as "
                                        "upstream's `-e KEY=VALUE`; never dumped, never in a label or record.")
    extra_hosts: dict[str, str] = Field(default_factory=lambda: dict(HOST_ALIASES), description="/etc/hosts "
                                        "entries name -> IP or 'host-gateway' (the host, as upstream's --add-host).")
    shm_size_mb: int = Field(SHM_SIZE_MB, gt=0, description="Size of /dev/shm (upstream: 2g).")
    volumes: dict = Field(default_factory=dict, description="Extra mounts (claw homes), the attempt's container only; "
                           "none may lie in the task package.")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra labels (sweep, cell, attempt).")
    claw_env: dict[str, str] = Field(default_factory=dict, description="The claw's environment (its home, its "
                                     "settings): the attempt's container only, never a set-up capture.")
    cache_setup: bool = Field(False, description="Start from the set-up captured for this task's inputs "
                              "(clawmark/taskenv/setup_cache.py); the first attempt of a key captures it.")
    max_results_bytes: int = Field(512 * 2**20, gt=0, description="Cap on one copy of /tmp_workspace/results.")

    def for_task(self, task) -> "TaskEnvConfig":
        """This config with the executor user and the base skills decided by the task's layout."""
        update = {}
        if self.executor_user is None:
            update["executor_user"] = executor_user_of(runtime_profile(task))
        if self.base_skills is None:
            update["base_skills"] = base_skills_for(task, None)

        headed = wants_desktop(task)
        # where agent-browser opens its browser, as upstream's runner says; the a11y defaults with the desktop
        env = {BROWSER_HEADED: "1" if headed else "0", **(A11Y_ENV if headed else {}), **self.env}
        if env != self.env:
            update["env"] = env
        return self.model_copy(update=update)

    @property
    def uid_gid(self) -> tuple[int, int]:
        uid, gid = (self.executor_user or EXECUTOR_USER).split(":")
        return int(uid), int(gid)


def runtime_profile(task, choice: ExecutorChoice = "auto") -> RuntimeProfile:
    """`auto`: root for upstream-layout tasks (as upstream's runner), the unprivileged user for
    clawmark's own; either way inside the least-privilege container."""
    root = choice == "root" or (choice == "auto" and task.layout == "uniclaw")
    return "root-least" if root else "user-least"


def executor_user_of(profile: RuntimeProfile) -> str:
    return ROOT_USER if profile == "root-least" else EXECUTOR_USER


def base_skills_for(task, chosen: list[Path] | None) -> list[Path]:
    """The chosen base skills, or by default upstream's for an upstream-layout task and none for
    clawmark's own tasks."""
    if chosen is not None:
        return list(chosen)
    return [BASE_SKILLS_DIR / name for name in UPSTREAM_BASE_SKILLS] if task.layout == "uniclaw" else []


def executor_gets_credentials(task) -> bool:
    """Upstream-layout tasks pass their `.privacy` values to the executor, as upstream's runner does;
    clawmark's own tasks keep them host-side (pre_exec) unless the task says otherwise."""
    chosen = task.spec.executor_credentials
    return task.layout == "uniclaw" if chosen is None else chosen
