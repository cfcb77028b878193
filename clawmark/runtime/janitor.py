"""Remove leaked sandboxes: containers labelled clawmark.managed whose owner process died
(hard kill, OOM of the runner) or that are older than a bound.

`reap_sweep` is what a sweep runs on start: the containers an earlier, killed run of the same
sweep left behind (labelled with the sweep by `owner.container_labels`), whatever cell or stage
they were in. Containers of a live run on this host, or of runs on other hosts, are kept.
"""

from __future__ import annotations

import time

from clawmark.runtime import host_firewall, owner
from clawmark.runtime.engine import shared_client


def reap(older_than_s: float | None = None, label_selector: dict[str, str] | str | None = None,
         client=None) -> list[str]:
    """Remove matching clawmark containers; returns the removed container ids.

    A container is reaped when it is older than `older_than_s` (None = no age bound) or its
    owning process on this host is gone. `label_selector` narrows the set ("k=v" or a dict).
    """
    import docker  # heavy (Docker SDK): loaded on first engine use

    client = client or shared_client()
    removed = []
    # ignore_removed: another run may remove its own container between the listing and its inspect
    for container in client.containers.list(all=True, filters={"label": _filters(label_selector)}, ignore_removed=True):
        if not _is_leaked(container.labels, older_than_s):
            continue
        try:
            container.remove(force=True)
            removed.append(container.id)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            if "already in progress" not in str(exc):
                raise
    host_firewall.reap_stale_chains()  # host firewall chains of clawmark bridges that no longer exist
    return removed


def reap_sweep(sweep_id: str, client=None) -> list[str]:
    """Remove containers of `sweep_id` whose owner process on this host is gone; their ids."""
    return reap(older_than_s=None, label_selector={owner.SWEEP_LABEL: sweep_id}, client=client)


def _is_leaked(labels: dict[str, str], older_than_s: float | None) -> bool:
    if owner.owner_is_gone(labels):
        return True
    created = labels.get("clawmark.created", "")
    return older_than_s is not None and created.isdigit() and time.time() - int(created) > older_than_s


def _filters(label_selector: dict[str, str] | str | None) -> list[str]:
    selectors = ["clawmark.managed=true"]
    if isinstance(label_selector, str):
        selectors.append(label_selector)
    elif label_selector:
        selectors += [f"{key}={value}" for key, value in label_selector.items()]
    return selectors
