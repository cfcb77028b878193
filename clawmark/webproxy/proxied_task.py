"""A task container behind the web proxy, and the task hash that covers the web it replays."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from clawmark.runtime.exec_target import ForwardsToSandbox
from clawmark.runtime.sandbox import Sandbox
from clawmark.taskenv import TaskEnv
from clawmark.taskenv.env import enter_in_steps
from clawmark.webproxy.archive import DEFAULT_MATCH_HEADERS, archive_digest
from clawmark.webproxy.config import WebProxyConfig, task_rules
from clawmark.webproxy.errors import WebProxyError
from clawmark.webproxy.proxy import WebProxy, WebStats

REPLAY_MODES = ("replay", "replay-or-live")


class ProxiedTaskEnv(ForwardsToSandbox):
    """A TaskEnv behind the web proxy, with TaskEnv's interface (enter -> sandbox, exit,
    snapshot_results): the attempt runner uses it in place of TaskEnv when its sweep names a
    web mode. Use network_policy `none` (the proxy is then the only way out) or `full`
    (clients that ignore proxy variables bypass it); `registries-only` has its own proxy and
    is refused. The CA is installed as soon as the container's layout exists, before services
    start, so services, the claw and its tools all trust it."""

    def __init__(self, task, env_config, logs_dir: Path, web: WebProxyConfig, web_dir: Path,
                 work_dir: Path | None = None, before_services=()) -> None:
        if env_config.network_policy == "registries-only":
            raise WebProxyError("the web proxy replaces the registries-only proxy: use network_policy none "
                                "(registries stay reachable through the web proxy's pass-through hosts)")

        self.task, self.env_config, self.logs_dir = task, env_config, Path(logs_dir)
        self.proxy = WebProxy(web, task.task_id, web_dir, task_rules(task))
        self.inner, self.before_services = None, tuple(before_services)
        self.package_env = TaskEnv(task, env_config, self.logs_dir, work_dir=work_dir)  # pre_exec, the package copy

    def __enter__(self):
        enter_in_steps(self)
        return self.inner.sandbox

    @property
    def sandbox(self) -> Sandbox | None:  # type: ignore[override]  # the inner TaskEnv's container
        return self.inner.sandbox if self.inner is not None else None

    @property
    def image_id(self) -> str | None:
        return self.inner.image_id if self.inner is not None else None

    @property
    def setup_state(self) -> dict[str, str | None]:
        return self.inner.setup_state if self.inner is not None else {"setup_cache": "off: web proxy",
                                                                     "setup_cache_key": None}

    # TaskEnv's three steps (pre_exec, start, prepare), for a caller that runs them one by one.
    def pre_exec(self) -> None:
        self.package_env.pre_exec()  # on the host: no proxy involved
        self.task = self.package_env.task  # the attempt's copy when pre_exec ran

    def start(self):
        self.proxy.__enter__()
        try:
            config = self.env_config.for_task(self.task)
            config = config.model_copy(update={"env": {**config.env, **self.proxy.container_env()}})
            trust = partial(self.proxy.install_trust, executor_user=config.executor_user)
            self.inner = TaskEnv(self.task, config, self.logs_dir, on_layout=[trust],  # CA before services
                                 before_services=self.before_services)
            return self.inner.start()
        except BaseException:
            self.stop()
            raise

    def prepare(self) -> None:
        self.inner.prepare()

    def __exit__(self, *exc_info) -> None:
        try:
            self.stop()
        finally:
            self.package_env.release_package(raise_changed=exc_info[0] is None)

    def release_package(self, raise_changed: bool = True) -> None:
        self.package_env.release_package(raise_changed)

    def stop(self) -> None:
        try:
            if self.inner is not None:
                self.inner.stop()
        finally:
            self.proxy.__exit__(None, None, None)

    def snapshot_results(self, dest: Path) -> list[str]:
        return self.inner.snapshot_results(dest)


@contextmanager
def web_task_env(task, env_config, logs_dir: Path, web: WebProxyConfig, web_dir: Path) -> Iterator[tuple]:
    """`with web_task_env(...) as (env, sandbox, proxy):` a ProxiedTaskEnv as a context manager."""
    env = ProxiedTaskEnv(task, env_config, logs_dir, web, web_dir)
    with env as sandbox:
        yield env, sandbox, env.proxy


def web_task_hash(task, web: WebProxyConfig | None) -> str:
    """The task's content hash, folded with its web archive's digest when replay is on
    (a re-recorded archive is a different task); unchanged otherwise."""
    base = task.content_hash()
    if web is None or web.mode not in REPLAY_MODES:
        return base
    digest = hashlib.sha256(f"{base}\0{archive_digest(web.archive_dir(task.task_id))}".encode())
    return digest.hexdigest()[:16]


def web_identity(web: WebProxyConfig | None) -> dict[str, str]:
    """What of the web proxy belongs to the cell key: its mode and, when there are any, a digest
    of the sweep's block rules (a task's own rules are in its package, so in its hash), and in
    replay what a request is matched on when that is not the default. Empty when there is no
    proxy, so cells without one keep their keys."""
    if web is None:
        return {}
    identity = {"web_mode": web.mode}
    if web.block:
        rules = json.dumps([rule.model_dump(mode="json") for rule in web.block], sort_keys=True)
        identity["web_block"] = hashlib.sha256(rules.encode()).hexdigest()[:16]
    matching = [sorted(h.lower() for h in web.match_headers), web.match_cookies]
    if web.mode in REPLAY_MODES and matching != [sorted(DEFAULT_MATCH_HEADERS), True]:
        identity["web_match"] = hashlib.sha256(json.dumps(matching).encode()).hexdigest()[:16]
    return identity


def row_web_counts(web_dir: Path) -> dict[str, int | None]:
    """`web_hits`, `web_misses` for the results row from an attempt's web folder (None when the
    attempt had no web proxy)."""
    path = Path(web_dir) / "webproxy.json"
    if not path.is_file():
        return {"web_hits": None, "web_misses": None}
    stats = WebStats.model_validate_json(path.read_text())
    return {"web_hits": stats.hits, "web_misses": stats.misses}


def blocked_requests_note(web_dir: Path, limit: int = 10, body_chars: int = 600) -> list[str]:
    """A judge-evidence section listing the requests the proxy refused (none: an empty list)."""
    files = sorted((Path(web_dir) / "blocked").glob("*.json"))
    if not files:
        return []
    lines = [f"## Web requests blocked by the benchmark (never sent; {len(files)} in all)"]
    for path in files[:limit]:
        item = json.loads(path.read_text())
        body = item["body"] if item["body_encoding"] == "utf-8" else f"<{item['body_bytes']} bytes, binary>"
        lines.append(f"- {item['method']} {item['url']} (rule {item['rule']}): {body[:body_chars]}")
    return ["\n".join(lines)]
