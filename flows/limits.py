"""Prefect global concurrency limits for a sweep's slots (see clawmark.sweeps.slots).

They are exact and shared by every worker that talks to the same server, unlike a per-process
pool. A limit that already exists is left as the operator set it (tune it in the UI or with
`prefect gcl update`); a missing one is created with the sweep's `max_parallel`."""

from __future__ import annotations

from prefect.client.orchestration import get_client
from prefect.exceptions import ObjectNotFound

from clawmark.sweeps.slots import engine_slot, model_slot


def ensure_limits(models: list[str], limit: int) -> list[str]:
    names = sorted({engine_slot(), *(model_slot(m) for m in models)})
    with get_client(sync_client=True) as client:
        for name in names:
            try:
                client.read_global_concurrency_limit_by_name(name)
            except ObjectNotFound:
                client.upsert_global_concurrency_limit_by_name(name, limit)
    return names
