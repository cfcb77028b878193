"""Protocol hints for upstream (UniClawBench) tasks, kept on clawmark's side.

Upstream's task files are never edited. Where a hint cannot be read off a task reliably (does it
need the desktop?), `tasks_catalog/overlays/uniclawbench.yaml` gives it per task id, with the
reason. A hint lands in the task's spec at load (`gui` is clawmark's own spec field), so it is
part of the task's content hash and so of its cell keys: editing a hint re-keys that task's cells.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clawmark.catalog.errors import from_validation, read_yaml_mapping
from clawmark.settings import TASKS_CATALOG

OVERLAY_NAME = "overlays/uniclawbench.yaml"
MAX_OVERLAY_BYTES = 256 * 1024


class TaskHint(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gui: bool | None = Field(None, description="The task needs the desktop (true) or not (false).")
    setup_cache: bool | None = Field(None, description="Its set-up may be captured once and reused (true: what "
                                     "reads today's date only stamps the set-up) or must be fresh (false). Read by "
                                     "clawmark/taskenv/setup_cache.py, never put in the spec: how fast a task is "
                                     "set up is no part of its identity.")
    why: str = Field(min_length=1, description="What in the task says so, for a reader of the overlay.")


class Overlay(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: dict[str, TaskHint] = Field(default_factory=dict)


def overlay_file() -> Path:
    return TASKS_CATALOG / OVERLAY_NAME


def load_overlay(file: Path | None = None) -> Overlay:
    file = file or overlay_file()
    if not file.is_file():
        return Overlay()
    return _parse(file, file.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _parse(file: Path, _mtime_ns: int) -> Overlay:
    data = read_yaml_mapping(file, max_bytes=MAX_OVERLAY_BYTES, what="overlay file", root="a mapping with `tasks:`")
    try:
        return Overlay.model_validate(data)
    except ValidationError as err:
        raise from_validation(file, err) from None


def setup_cache_hint(task) -> tuple[bool | None, str]:
    """The overlay's `setup_cache` for an upstream-layout task, and its reason."""
    hint = load_overlay().tasks.get(task.task_id) if task.layout == "uniclaw" else None
    return (hint.setup_cache, hint.why) if hint is not None else (None, "")


def apply_overlay(spec, layout: str, overlay: Overlay | None = None) -> tuple[object, dict[str, str]]:
    """The spec with the overlay's hints for its task id (upstream layout only; a value the task
    itself sets wins), and the reason of each hint applied."""
    if layout != "uniclaw":
        return spec, {}
    hint = (overlay or load_overlay()).tasks.get(spec.task_id)
    if hint is None or hint.gui is None or spec.gui is not None:
        return spec, {}
    return spec.model_copy(update={"gui": hint.gui}), {"gui": f"overlay: {hint.why}"}
