"""Synthetic rows for tests, benchmarks and demos of the analysis (never for reported numbers).

`example_row(**overrides)` is one valid row; `synthetic_table(n)` is a vectorised table of `n`
rows with the full `RESULTS_SCHEMA`, built with numpy (a million rows in about a second).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyarrow as pa

from clawmark.results.identity import config_hash
from clawmark.results.row import AttemptRow
from clawmark.results.schema import RESULTS_SCHEMA
from clawmark.results.usage import ROLES, RoleUsage

CLAWS = ("openclaw", "nanobot", "hermes", "edict", "zeroclaw", "genericagent", "mini-swe-agent", "reference")
MODELS = ("opus", "sonnet", "gpt", "glm", "deepseek", "qwen")


def example_row(**overrides: object) -> AttemptRow:
    """A valid closed-loop pass; override any field (identity changes recompute the cell key)."""
    fields: dict[str, object] = dict(
        sweep_id="sweep-1", track="closed_loop", task_id="task-1", task_hash="th1",
        category="101_skill_usage", capability="skill_usage", language="en",
        claw="nop", claw_version="1.0", claw_settings_hash=config_hash({}),
        model="scripted/demo", model_params_hash=config_hash({"temperature": 0}), seed=0,
        status="pass", score=0.95, threshold=0.9, turns=1, followups_used=0,
        usage={role: RoleUsage.zero() for role in ROLES},
        started_at=datetime(2026, 1, 1, tzinfo=UTC), finished_at=datetime(2026, 1, 1, 0, 5, tzinfo=UTC),
        scripted_model=True,
    )
    fields.update(overrides)
    return AttemptRow(**fields)


def synthetic_table(n: int, *, sweep_id: str = "bench", seed: int = 0, n_tasks: int = 400) -> pa.Table:
    """`n` plausible rows over CLAWS × MODELS × tasks × seeds; ~2 % infra errors (NaN score)."""
    rng = np.random.default_rng(seed)
    claw_i, model_i = rng.integers(0, len(CLAWS), n), rng.integers(0, len(MODELS), n)
    skill = 0.3 + 0.05 * claw_i / len(CLAWS) + 0.4 * (model_i + 1) / len(MODELS)
    score = np.clip(rng.normal(skill, 0.25), 0, 1)
    error = rng.random(n) < 0.02
    score[error] = math.nan
    passed = score >= 0.9
    status = _pick(("fail", "pass", "infra_error"), np.where(error, 2, passed.astype(int)))
    cost = rng.lognormal(-1.0 + 0.3 * model_i, 0.5)
    cost[rng.random(n) < 0.01] = math.nan  # unpriced calls
    columns = _identity_columns(n, sweep_id, claw_i, model_i, rng, n_tasks)
    columns |= {
        "status": status, "passed": pa.array(np.where(error, None, passed), pa.bool_()),
        "score": score, "threshold": np.full(n, 0.9), "executor_cost_usd": cost, "cost_usd": cost,
        "executor_input_tokens": rng.integers(1_000, 2_000_000, n), "executor_calls": rng.integers(1, 60, n),
        "error_kind": _pick(("none", "infra"), error.astype(int)), "wall_total_s": rng.uniform(30, 1800, n),
        "started_at": pa.array(np.full(n, np.datetime64("2026-01-01T00:00:00", "us")), pa.timestamp("us", tz="UTC")),
    }
    return _complete(columns, n)


def _identity_columns(n: int, sweep_id: str, claw_i, model_i, rng, n_tasks: int) -> dict[str, Any]:
    task_i, seeds = rng.integers(0, n_tasks, n), rng.integers(0, 3, n)
    keys = pa.array([f"{i:016x}" for i in range(n)])  # unique per row; stands in for cell_key
    const = {name: _pick((value,), np.zeros(n, dtype=int)) for name, value in (
        ("sweep_id", sweep_id), ("track", "closed_loop"), ("task_hash", "th"), ("claw_version", "1"),
        ("protocol_version", "1"))}
    return const | {
        "cell_key": keys, "attempt_id": keys, "task_id": _pick([f"task-{i}" for i in range(n_tasks)], task_i),
        "claw": _pick(CLAWS, claw_i), "model": _pick(MODELS, model_i),
        "seed": seeds, "scripted_model": np.ones(n, dtype=bool),
    }


def _complete(columns: dict[str, Any], n: int) -> pa.Table:
    """Fill every schema column not given with nulls, in schema order."""
    arrays = [_array(columns[f.name], f.type) if f.name in columns else pa.nulls(n, f.type) for f in RESULTS_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=RESULTS_SCHEMA)



def _array(values: pa.Array | np.ndarray, type_: pa.DataType) -> pa.Array:
    return values.cast(type_) if isinstance(values, pa.Array) else pa.array(values, type_)


def _pick(values: Sequence[str], index: np.ndarray) -> pa.Array:
    """Strings by index, built in Arrow (numpy string ops are ~10x slower at this size)."""
    return pa.array(list(values), pa.string()).take(pa.array(index))
