"""A task container behind the web proxy, and the task hash that covers the web it replays."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from clawmark.webproxy.archive import archive_digest
from clawmark.webproxy.config import WebProxyConfig, task_rules
from clawmark.webproxy.errors import WebProxyError
from clawmark.webproxy.proxy import WebProxy

REPLAY_MODES = ("replay", "replay-or-live")


@contextmanager
def web_task_env(task, env_config, logs_dir: Path, web: WebProxyConfig, web_dir: Path) -> Iterator[tuple]:
    """`with web_task_env(...) as (task_env, sandbox, proxy):` TaskEnv with the proxy as its web.

    Use network_policy `none` (the proxy is then the only way out) or `full` (clients that
    ignore proxy variables bypass it); `registries-only` has its own proxy and is refused.
    The CA is installed after services start, so services reach only plain HTTP and the
    pass-through registries.
    """
    from clawmark.taskenv import TaskEnv

    if env_config.network_policy == "registries-only":
        raise WebProxyError("the web proxy replaces the registries-only proxy: use network_policy none "
                            "(registries stay reachable through the web proxy's pass-through hosts)")
    with WebProxy(web, task.task_id, web_dir, task_rules(task)) as proxy:
        config = env_config.model_copy(update={"env": {**env_config.env, **proxy.container_env()}})
        task_env = TaskEnv(task, config, logs_dir)
        with task_env as sandbox:
            proxy.install_trust(sandbox, config.executor_user)
            yield task_env, sandbox, proxy


def web_task_hash(task, web: WebProxyConfig | None) -> str:
    """The task's content hash, folded with its web archive's digest when replay is on
    (a re-recorded archive is a different task); unchanged otherwise."""
    base = task.content_hash()
    if web is None or web.mode not in REPLAY_MODES:
        return base
    digest = hashlib.sha256(f"{base}\0{archive_digest(web.archive_dir(task.task_id))}".encode())
    return digest.hexdigest()[:16]


def row_web_counts(proxy: WebProxy | None) -> dict[str, int | None]:
    """`web_hits`, `web_misses` for the results row (None when there was no proxy)."""
    if proxy is None:
        return {"web_hits": None, "web_misses": None}
    stats = proxy.stats()
    return {"web_hits": stats.hits, "web_misses": stats.misses}
