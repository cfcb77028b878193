"""Stable identity of a cell and of any configuration object.

A cell is (track, task id + content hash, claw + version + settings, model + params, seed,
protocol version). Its key is the first 16 hex digits of sha256 over canonical JSON: keys
sorted, no whitespace, settings and params reduced to their own `config_hash` first. The
same inputs give the same key on every machine and Python version; any change to any field
gives a new key. The key doubles as the Prefect cache key of the attempt stage, so it must
never depend on dict order, object identity or the clock.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Set
from enum import Enum
from pathlib import PurePath

from pydantic import BaseModel

from clawmark.jsontypes import JsonValue

KEY_HEX_DIGITS = 16

ConfigLike = BaseModel | Mapping[str, object]
"""A configuration as it is hashed and saved: a pydantic model or a plain mapping."""


class UnhashableConfig(TypeError):
    """A configuration value has no canonical JSON form (e.g. an open file or a function)."""


def _canonical(obj: object) -> JsonValue:
    if isinstance(obj, BaseModel):
        return _canonical(obj.model_dump(mode="json"))
    if isinstance(obj, Enum):
        return _canonical(obj.value)
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, Set):
        return sorted((_canonical(v) for v in obj), key=_canonical_json)
    if isinstance(obj, PurePath):
        return obj.as_posix()
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)  # JSON has no NaN/inf; keep them distinct from each other and from null
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise UnhashableConfig(f"cannot hash a {type(obj).__name__} in a configuration: {obj!r:.80}")


def _canonical_json(obj: JsonValue) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _digest(canonical: JsonValue) -> str:
    return hashlib.sha256(_canonical_json(canonical).encode("utf-8")).hexdigest()[:KEY_HEX_DIGITS]


def config_hash(obj: object) -> str:
    """Short stable hash of any JSON-like value or pydantic model (None hashes like `{}`)."""
    return _digest(_canonical({} if obj is None else obj))


def cell_key_from_hashes(
    *,
    track: str,
    task_id: str,
    task_hash: str,
    claw: str,
    claw_version: str,
    claw_settings_hash: str,
    model: str,
    model_params_hash: str,
    seed: int,
    protocol_version: str,
) -> str:
    """The cell key when settings and params are already reduced to their `config_hash`."""
    return _digest(_canonical(locals()))


def cell_key(
    track: str,
    task_id: str,
    task_hash: str,
    claw: str,
    claw_version: str,
    claw_settings: ConfigLike | None,
    model: str,
    model_params: ConfigLike | None,
    seed: int,
    protocol_version: str,
) -> str:
    """Stable key of one cell; `claw_settings` / `model_params` are dicts or pydantic models."""
    return cell_key_from_hashes(
        track=str(track),
        task_id=task_id,
        task_hash=task_hash,
        claw=claw,
        claw_version=claw_version,
        claw_settings_hash=config_hash(claw_settings),
        model=model,
        model_params_hash=config_hash(model_params),
        seed=int(seed),
        protocol_version=str(protocol_version),
    )
