"""`rejudge_sweep`: the finished closed-loop attempts of a sweep judged again by another supervisor
model, from their saved artifacts, into a new sweep (default `<sweep>--rejudge-<model slug>`).

Each new row keeps the judged attempt's identity (task, claw, model, seed) and executor facts,
names its judge (`supervisor_model`) and the attempt it judged (`rejudge_of`); its cell key folds
the new judge into the model params hash, so it never collides with a cell run for real. The new
sweep's pinned config records its source sweep and judge: `clawmark report` finds the pair from
either side (`rejudges_of`) and shows their agreement. A rerun reuses finished cells (`force`
judges them again); a different judge under the same new sweep id is refused (ConfigMismatch).
Attempts that ended before any turn was judged (e.g. a provider outage on turn 1) are skipped
with the reason; a task whose package changed since the attempt is refused: its rubric is not
the one the attempt was judged by.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.patch import model_for_task
from clawmark.attempts.rejudge_cell import RejudgeError, judged_turns, rejudge_attempt
from clawmark.attempts.seams import AttemptGateway
from clawmark.catalog import load_task, load_tasks
from clawmark.catalog.task import ClosedLoopTask
from clawmark.results import AttemptRow, ResultStore, Track, config_hash
from clawmark.results.identity import cell_key_from_hashes
from clawmark.results.layout import check_name
from clawmark.results.pinning import pinned_config
from clawmark.results.schema import from_record
from clawmark.webproxy.proxied_task import web_task_hash

REJUDGE_KEY = "rejudge"  # of the new sweep's pinned config: {"source_sweep", "supervisor_model"}


class RejudgeConfig(BaseModel):
    source_sweep: str = Field(description="The finished sweep whose closed-loop attempts are judged again.")
    supervisor_model: str = Field(min_length=1, description="The new judge; `{task_id}` names a per-task family.")
    sweep_id: str | None = Field(None, description="The new sweep; default `<source>--rejudge-<model slug>`.")
    tasks_dir: Path | None = Field(None, description="Task tree; default: each attempt's saved task file.")
    force: bool = Field(False, description="Judge again cells the new sweep already has.")

    def target(self) -> str:
        return check_name("sweep_id", self.sweep_id or default_sweep_id(self.source_sweep, self.supervisor_model))


@dataclass
class CellRejudged:
    source: AttemptRow
    row: AttemptRow | None = None
    reused: bool = False
    skipped: str | None = None


def default_sweep_id(source: str, model: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model.replace("{task_id}", "")).strip("-._") or "judge"
    return f"{source}--rejudge-{slug}"


def rejudge_sweep(store: ResultStore, config: RejudgeConfig, gateway: AttemptGateway,
                  on_cell: Callable[[CellRejudged], None] | None = None) -> list[CellRejudged]:
    """Judge every closed-loop attempt of the source sweep again; one new row per judged attempt."""
    target = config.target()
    if target == config.source_sweep:
        raise RejudgeError(f"--as {target}: the re-judged rows need a sweep of their own, not the source sweep")
    frame = store.read(config.source_sweep, where={"track": Track.CLOSED_LOOP.value})
    if frame.empty:
        raise RejudgeError(f"{store.location}: sweep {config.source_sweep}: no closed-loop rows to judge again")
    pinned = store.pin_config(target, {REJUDGE_KEY: {"source_sweep": config.source_sweep,
                                                     "supervisor_model": config.supervisor_model}})
    tasks = _TaskSource(config.tasks_dir)
    done: list[CellRejudged] = []
    for record in frame.sort_values(["task_id", "claw", "model", "seed"]).to_dict("records"):
        result = _rejudge_one(store, from_record(record), config, target, pinned, tasks, gateway)
        done.append(result)
        if on_cell is not None:
            on_cell(result)
    return done


def rejudges_of(store: ResultStore, sweep_id: str) -> list[str]:
    """Sweeps of the store that re-judge `sweep_id` (by their pinned config)."""
    found = []
    for other in store.sweeps():
        pin = pinned_config(store, other) if other != sweep_id else None
        if isinstance(pin, dict) and (pin.get(REJUDGE_KEY) or {}).get("source_sweep") == sweep_id:
            found.append(other)
    return found


def source_of(store: ResultStore, sweep_id: str) -> str | None:
    """The sweep `sweep_id` re-judges, when it is a re-judge."""
    pin = pinned_config(store, sweep_id)
    return (pin.get(REJUDGE_KEY) or {}).get("source_sweep") if isinstance(pin, dict) else None


def _rejudge_one(store: ResultStore, source: AttemptRow, config: RejudgeConfig, target: str, pinned: str,
                 tasks: _TaskSource, gateway: AttemptGateway) -> CellRejudged:
    supervisor = model_for_task(config.supervisor_model, source.task_id)
    fields = {"sweep_id": target, "model_params_hash": config_hash({"rejudge_of": source.model_params_hash,
                                                                    "supervisor": supervisor})}
    key = cell_key_from_hashes(**{**_identity(source), "model_params_hash": fields["model_params_hash"]})
    if store.has(target, key) and not config.force:
        return CellRejudged(source, store.read_row(target, key), reused=True)
    with _source_dir(store, source) as folder:
        if not judged_turns(folder):
            return CellRejudged(source, skipped=f"no judged turn (the attempt ended {source.status} before judging)")
        saved = _saved_config(folder)
        protocol = ClosedLoopAttemptConfig.model_validate(saved.get("protocol") or {})
        task = tasks.task(source, saved, protocol, folder)
        layout = store.layout(target, key)
        layout.clear()
        layout.ensure().write_config({"rejudge_of": {"sweep_id": source.sweep_id, "cell_key": source.cell_key,
                                                     "attempt_id": source.attempt_id},
                                      "supervisor_model": supervisor, "judged_config": saved})
        row = rejudge_attempt(source, folder, task, protocol, layout=layout, gateway=gateway, supervisor=supervisor,
                              fields=fields, config_hash=pinned)
    store.write(row)
    return CellRejudged(source, row)


def _identity(row: AttemptRow) -> dict[str, Any]:
    names = ("track", "task_id", "task_hash", "claw", "claw_version", "claw_settings_hash", "model",
             "model_params_hash", "seed", "protocol_version")
    return {name: getattr(row, name) for name in names}


def _saved_config(folder: Path) -> dict[str, Any]:
    path = folder / "config.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RejudgeError(f"{path}: the attempt's saved config (task_file, protocol) is unreadable: {exc}") from None
    if "judged_config" in saved:  # a re-judge judged again: its source's config
        saved = saved["judged_config"]
    return saved


@contextmanager
def _source_dir(store: ResultStore, row: AttemptRow) -> Iterator[Path]:
    """The judged attempt's folder on local disk (a remote store's copy is fetched for the while)."""
    if store.is_local:
        yield store.layout(row.sweep_id, row.cell_key).dir
        return
    import pyarrow.fs as pafs  # heavy: only Parquet files need it

    scratch = Path(tempfile.mkdtemp(prefix="clawmark-rejudge-"))
    try:
        pafs.copy_files(store.remote_cell_dir(row.sweep_id, row.cell_key), str(scratch), source_filesystem=store.fs,
                        destination_filesystem=pafs.LocalFileSystem())
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class _TaskSource:
    """Tasks by id: from `tasks_dir` when given, else from each attempt's saved task file."""

    def __init__(self, tasks_dir: Path | None):
        self.tasks_dir, self._tree = tasks_dir, None

    def task(self, row: AttemptRow, saved: dict[str, Any], protocol: ClosedLoopAttemptConfig,
             folder: Path) -> ClosedLoopTask:
        if self.tasks_dir is not None:
            self._tree = self._tree or {t.task_id: t for t in load_tasks(self.tasks_dir)}
            if row.task_id not in self._tree:
                raise RejudgeError(f"--tasks-dir {self.tasks_dir}: no task {row.task_id}")
            task, where = self._tree[row.task_id], str(self.tasks_dir)
        else:
            where = saved.get("task_file") or ""
            if not where or not Path(where).exists():
                raise RejudgeError(f"{folder / 'config.json'}: task_file {where!r} is not there "
                                   f"(give the task tree with --tasks-dir)")
            task = load_task(where)
        if (found := web_task_hash(task, protocol.web)) != row.task_hash:
            raise RejudgeError(f"{where}: task {row.task_id} has hash {found}, the attempt ran {row.task_hash}: "
                               f"its package changed, so its rubric is not the one the attempt was judged by")
        return task
