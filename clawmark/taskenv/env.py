"""`with TaskEnv(task, config, logs_dir) as sandbox:` one closed-loop task container, ready for
the first executor turn and always torn down (service logs saved first)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clawmark.catalog.errors import CatalogError
from clawmark.fsio import atomic_write_text
from clawmark.runtime.engine import shared_client
from clawmark.runtime.exec_target import ForwardsToSandbox
from clawmark.runtime.images import ensure_image
from clawmark.runtime.network import gateway_network
from clawmark.runtime.registry_proxy import allow_client, forget_client, proxy_env, registry_proxy
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.taskenv.config import WORKSTATION_RECIPE, TaskEnvConfig, executor_gets_credentials
from clawmark.taskenv.inject import inject_services, inject_skills, inject_sources
from clawmark.taskenv.container_layout import PREPARE_SCRIPT, RESULTS_DIR, WORKSPACE
from clawmark.taskenv.errors import PreExecFailed, TaskEnvError
from clawmark.taskenv.package_guard import PackageGuard, attempt_copy, keep_hidden_only, reload
from clawmark.taskenv.pre_exec import run_pre_exec
from clawmark.taskenv.services import save_service_logs, start_services
from clawmark.taskenv.setup_cache import cached_image, left_running, plan_setup, processes, read_record

LIFETIME_MARGIN_S = 1800


def enter_in_steps(env) -> None:
    """A task environment's __enter__ as its three steps (pre_exec, start, prepare); a failed
    step tears down what the earlier ones made (container, package copy) before the error goes on."""
    try:
        env.pre_exec()
        env.start()
        env.prepare()
    except BaseException as exc:
        env.__exit__(type(exc), exc, exc.__traceback__)
        raise


class TaskEnv(ForwardsToSandbox):
    """Pre_exec on the host, then a container with the package injected and services started.

    Raises PreExecFailed / ServiceFailed (logs saved in logs_dir) or the runtime's errors; the
    container never outlives the `with` block. The package is a read-only input
    (clawmark/taskenv/package_guard.py): a task with pre_exec scripts runs them in a copy under
    `work_dir`, and `task` is then that copy (injected, and judged by its references); leaving
    the block prunes the copy to its hidden references and raises PackageChanged if the package
    itself changed.
    """

    def __init__(self, task, config: TaskEnvConfig | None = None, logs_dir: Path | None = None,
                 on_layout: Sequence[Callable[[Any], Any]] = (), work_dir: Path | None = None,
                 before_services: Sequence[Callable[[Any], Any]] = ()) -> None:
        """`on_layout` hooks get the sandbox once the layout and the executor user exist, before
        anything of the package is injected or started (the web proxy installs its CA there, so
        services, pre-turn setup and every turn already trust it). `before_services` hooks get
        it once the package is injected, before its services start (an upstream-layout task's
        desktop: taskenv/headed.py). `work_dir`: where the attempt's copy of the package goes
        (default: a temporary folder)."""
        self.task, self.config, self.on_layout = task, (config or TaskEnvConfig()).for_task(task), tuple(on_layout)
        self.before_services = tuple(before_services)
        self.package_task, self.guard = task, PackageGuard(task)  # digests before anything runs
        self.work_dir = Path(work_dir) if work_dir else None
        self.logs_dir = Path(logs_dir) if logs_dir else Path(tempfile.mkdtemp(prefix="clawmark-taskenv-"))
        self.sandbox: Sandbox | None = None
        self.skipped_links: list[str] = []
        self.setup_state: dict[str, str | None] = {"setup_cache": "off: cache_setup is false",
                                                     "setup_cache_key": None}
        self._restored: list[str] | None = None  # services the set-up image already ran
        self._base_image_id: str | None = None
        self._proxy_client: str | None = None

    def __enter__(self):
        enter_in_steps(self)
        return self.sandbox

    # The three steps of __enter__, for a caller that runs (and retries) them one by one.
    def pre_exec(self) -> None:
        """The package's pre_exec scripts, on the host, in the attempt's copy of the package."""
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        _refuse_package_mounts(self.task, self.config)
        if not self.package_task.pre_exec_scripts:
            return
        if self.work_dir is None:
            self.work_dir = Path(tempfile.mkdtemp(prefix="clawmark-package-"))
        self.task = attempt_copy(self.package_task, self.work_dir)
        run_pre_exec(self.task, self.logs_dir, self.config.pre_exec_timeout_s,
                     environ={**os.environ, **self.config.credentials}, snapshot=self.config.snapshot)
        try:
            self.task = reload(self.task)  # what pre_exec regenerated (references too) is this attempt's
        except CatalogError as exc:
            raise PreExecFailed("scripts", f"left a package that does not load: {exc}") from None

    def start(self):
        """The container, with nothing of the package in it yet; gone again if this fails."""
        self.logs_dir.mkdir(parents=True, exist_ok=True)
        _refuse_package_mounts(self.task, self.config)
        base = self.config.image or ensure_image(WORKSTATION_RECIPE)
        image = self._setup_image(base) if self.config.cache_setup else base
        self.sandbox = _provision(self.task, self.config, image)
        try:
            self._proxy_client = _register_with_proxy(self.sandbox, self.config)
        except BaseException:
            self.stop()
            raise
        return self.sandbox

    def prepare(self) -> None:
        """Sources, skills and services injected into the started container; services started."""
        self._prepare()

    def __exit__(self, *exc_info) -> None:
        try:
            self.stop()
        finally:
            self.release_package(raise_changed=exc_info[0] is None)

    def release_package(self, raise_changed: bool = True) -> None:
        """Once the attempt is over: its copy pruned to the hidden references it was judged
        against (and package.json); PackageChanged naming the files if the package changed."""
        if self.task is not self.package_task and self.work_dir is not None and self.work_dir.is_dir():
            keep_hidden_only(self.task, self.work_dir, self.guard.digests)
        if raise_changed:
            self.guard.check()

    def stop(self) -> None:
        """The container down (service logs saved first); the package copy stays for a restart."""
        if self.sandbox is None:
            return
        try:
            save_service_logs(self.sandbox, self.logs_dir)
        finally:
            self.sandbox.teardown()
            self.sandbox = None
            if self._proxy_client:
                forget_client(self._proxy_client)
                self._proxy_client = None

    def snapshot_results(self, dest: Path) -> list[str]:
        """Copy /tmp_workspace/results into `dest` (merged); the relative file names in it.

        Links the claw made that lead outside the folder are left out (see `skipped_links`); a
        results folder the claw removed copies as an empty one.
        """
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="clawmark-results-") as tmp:
            try:
                self.skipped_links = self.sandbox.copy_out_skipping_unsafe(RESULTS_DIR, tmp)
            except FileNotFoundError:
                self.skipped_links = []
                return []
            shutil.copytree(Path(tmp) / Path(RESULTS_DIR).name, dest, dirs_exist_ok=True, symlinks=True)
        return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())

    def _prepare(self) -> None:
        sandbox, task, config = self.sandbox, self.task, self.config
        if self._restored is None:
            injected, done = self._lay_out_and_inject(sandbox), set()
        else:  # the set-up image holds the layout, the package and what its oneshot services made
            injected, done = read_record(sandbox)["injected"], set(self._restored)
        self._record(injected)
        for hook in self.before_services:
            hook(sandbox)
        start_services(sandbox, [s for s in task.services if s.spec.name not in done], injected["services"],
                       config, self.logs_dir)
        # What oneshot services seeded as root becomes the executor's, as upstream's root executor had it.
        _as_root(sandbox, ["chown", "-R", config.executor_user, WORKSPACE], "hand /tmp_workspace to the executor")

    def _lay_out_and_inject(self, sandbox) -> dict[str, list[str] | dict[str, str]]:
        task, config = self.task, self.config
        uid, gid = config.uid_gid
        _as_root(sandbox, ["bash", "-c", PREPARE_SCRIPT, "prepare", str(uid), str(gid)], "prepare the task layout")
        for hook in self.on_layout:
            hook(sandbox)
        return {
            "sources": inject_sources(sandbox, task, config.snapshot, config.uid_gid),
            "skills": inject_skills(sandbox, task, config.base_skills),
            "services": inject_services(sandbox, task),
        }

    def _setup_image(self, base: str) -> str:
        """The captured set-up to start from (captured now when it is the key's first attempt),
        or `base` when there is none (the row's `setup_cache` says why)."""
        plan = plan_setup(self.task, self.config, self.before_services, self.on_layout, base)
        self.setup_state = {"setup_cache": f"off: {plan.off}" if plan.off else None, "setup_cache_key": plan.key}
        if plan.off:
            return base
        bound = self.config.service_timeout_s * (len(plan.cached_services) + 1) + LIFETIME_MARGIN_S
        image, state = cached_image(plan, lambda: self._capture(plan, base), lock_timeout_s=bound)
        self.setup_state["setup_cache"] = state
        self._restored = list(plan.cached_services) if image else None
        self._base_image_id = plan.base_image_id if image else None
        return image or base

    @property
    def image_id(self) -> str | None:
        """The id of the image the task's container is made of: its base, also when it started
        from a captured set-up (whose key the row names apart)."""
        return self._base_image_id or (self.sandbox.image_id if self.sandbox else None)

    def _capture(self, plan, base: str) -> tuple:
        """A container no claw enters, set up as far as the plan caches: (sandbox, record, why not)."""
        config = self.config.model_copy(update={"claw_env": {}, "volumes": {}, "labels": {"clawmark.setup_key": plan.key}})
        sandbox = _provision(self.task, config, base, role="setup-capture")
        try:
            injected = self._lay_out_and_inject(sandbox)
            for hook in self.before_services:
                hook(sandbox)
            before = processes(sandbox)
            cached = [s for s in self.task.services if s.spec.name in plan.cached_services]
            start_services(sandbox, cached, injected["services"], config, self.logs_dir / "setup-capture")
            why = left_running(sandbox, before)
        except BaseException:
            sandbox.teardown()
            raise
        return sandbox, {"key": plan.key, "injected": injected, "services": plan.cached_services}, why

    def _record(self, injected: dict) -> None:
        declared = {name.removeprefix("skills/").strip("/") for name in self.task.spec.skills}
        record = {"task_id": self.task.task_id, "image": self.sandbox.config.image, **self.setup_state,
                  "network_policy": self.config.network_policy, "snapshot": self.config.snapshot,
                  "executor_user": self.config.executor_user, **injected,
                  "skills_missing": sorted(declared - set(injected["skills"]))}
        atomic_write_text(self.logs_dir / "taskenv.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def _provision(task, config: TaskEnvConfig, image: str, role: str = "task-env"):
    """The container of `image` (the task's, or a captured set-up of it), as `role`."""
    # `full` is the routed clawmark-open network; the sandbox maps the gateway host name on both.
    network = "bridge" if config.network_policy == "full" else "gateway"
    env = {**config.env, **config.claw_env}
    if config.network_policy == "registries-only":
        env.update(proxy_env(registry_proxy()[1]))
    if executor_gets_credentials(task):  # as upstream's `docker run -e KEY=VALUE` of each `.privacy` key
        env.update(config.credentials)
    labels = {"clawmark.role": role, "clawmark.task": task.task_id[:60],
              "clawmark.network_policy": config.network_policy,
              "clawmark.snapshot": str(config.snapshot).lower(), **config.labels}
    return Sandbox.provision(SandboxConfig(
        image=image, cpus=config.cpus, memory_mb=config.memory_mb,
        pids_limit=config.pids_limit, network=network, user=config.executor_user, workdir=WORKSPACE,
        env=env, labels=labels, lifetime_seconds=config.lifetime_seconds or _lifetime(task, config),
        extra_hosts=config.extra_hosts, shm_size_mb=config.shm_size_mb,
        volumes=config.volumes, max_copy_bytes=config.max_results_bytes))


def _register_with_proxy(sandbox, config: TaskEnvConfig) -> str | None:
    """The container's address on the gateway network, allowed through the registry proxy."""
    if config.network_policy != "registries-only":
        return None

    networks = shared_client().containers.get(sandbox.container_id).attrs["NetworkSettings"]["Networks"]
    ip = networks[gateway_network()[0]]["IPAddress"]
    allow_client(ip)
    return ip


def _lifetime(task, config: TaskEnvConfig) -> int:
    return int(task.spec.max_total_seconds + config.service_timeout_s * max(1, len(task.services))
               + LIFETIME_MARGIN_S)


def _as_root(sandbox, argv: list[str], what: str) -> None:
    result = sandbox.exec(argv, timeout_s=300, user="0", workdir="/")
    if result.exit_code != 0:
        raise TaskEnvError(f"could not {what} in the container: {(result.stderr or result.stdout).strip()[:400]}")


def _refuse_package_mounts(task, config: TaskEnvConfig) -> None:
    package = task.package_dir.resolve()
    for host in (h for h in config.volumes if str(h).startswith("/")):  # others are named volumes
        path = Path(host).resolve()
        if path == package or path.is_relative_to(package) or package.is_relative_to(path):
            raise CatalogError(Path(host), "volumes", f"a mount outside the task package {package} "
                               "(hidden references must never be mounted into the executor's container)")
