"""The resolved config of a sweep, saved when it starts; a resume with another config is refused.

Rows of one sweep must come from one protocol: a resume that silently changed a budget or a
prompt would mix two experiments in one table. `<root>/sweeps/<sweep_id>/config.json` holds
`{"config_hash": ..., "config": ...}`.
"""

from __future__ import annotations

import json

import pyarrow.fs as pafs

from clawmark.jsontypes import JsonObject, JsonValue
from clawmark.results.errors import ConfigMismatch
from clawmark.results.identity import ConfigLike, config_hash
from clawmark.results.store_files import StoreFiles


def pin_config(store: StoreFiles, sweep_id: str, config: ConfigLike, *, replace: bool = False) -> str:
    """Save the config on first use and return its hash; raise `ConfigMismatch` if it changed."""
    payload = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
    offered, path = config_hash(payload), store.sweep_config_path(sweep_id)
    pinned = pinned_hash(store, sweep_id)
    if pinned is not None and pinned != offered and not replace:
        raise ConfigMismatch(sweep_id, pinned, offered, path, differences(pinned_config(store, sweep_id), payload))
    if pinned != offered:
        text = json.dumps({"config_hash": offered, "config": payload}, indent=2, sort_keys=True)
        store.publish(path, text.encode("utf-8"))
    return offered


def _read_pin(store: StoreFiles, sweep_id: str) -> JsonObject | None:
    path = store.sweep_config_path(sweep_id)
    if store.fs.get_file_info(path).type != pafs.FileType.File:
        return None
    with store.fs.open_input_stream(path) as stream:
        return json.loads(stream.read().decode("utf-8"))


def pinned_hash(store: StoreFiles, sweep_id: str) -> str | None:
    pin = _read_pin(store, sweep_id)
    return None if pin is None else pin["config_hash"]


def pinned_config(store: StoreFiles, sweep_id: str) -> JsonValue:
    """The config a sweep was pinned with (what its report shows as its protocol), or None."""
    pin = _read_pin(store, sweep_id)
    return None if pin is None else pin["config"]


def differences(old: object, new: object, prefix: str = "") -> list[str]:
    """`path: old → new` for every leaf that differs between two JSON-like configs."""
    if isinstance(old, dict) and isinstance(new, dict):
        found: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            found += differences(old.get(key, "<absent>"), new.get(key, "<absent>"), f"{prefix}{key}.")
        return found
    return [] if old == new else [f"{prefix.rstrip('.') or '<config>'}: {old!r} → {new!r}"]
