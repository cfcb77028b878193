"""The model an attempt calls, from the model string of its cell (below the attempt modules, which
all need it)."""

from __future__ import annotations

TASK_PLACEHOLDER = "{task_id}"


def model_for_task(model: str, task_id: str) -> str:
    """The model an attempt calls. A model string may name a per-task family with `{task_id}`
    (e.g. `scripted/ref-{task_id}`: one scripted stand-in whose cassette differs per task); rows
    keep the family name, so the family is one column of results like any other model."""
    return model.replace(TASK_PLACEHOLDER, task_id)
