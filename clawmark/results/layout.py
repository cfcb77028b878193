"""Artifact folder of one attempt: `<artifacts_root>/<sweep_id>/<cell_key>/`.

```
logs/             service, agent and container logs
transcript/       the claw's session backup / conversation
artifacts/        closed-loop deliverables copied out of /tmp_workspace/results
ledger.jsonl      gateway usage ledger (one line per model call)
decisions.jsonl   supervisor decisions, one per executor turn
patch.diff        cleaned model patch (patch track)
patch.raw.diff    the patch before cleaning
report.json       swebench-compatible per-instance report
eval.log          evaluator output
config.json       resolved attempt config (saved with every result)
row.json          the attempt row, written just before the Parquet row commits the cell
cycles/<n>/       closed loop, one folder per executor turn n (0-based):
  prompt.txt        what the executor was sent this turn (the task, then the rewritten feedback)
  turn.json         the claw's TurnResult (exit, finish reason, duration, completion gate)
  transcript/       the claw's session backup after the turn
  transcript.json   that backup as one message and tool-call list (clawmark.results.transcript)
  results/          copy of /tmp_workspace/results after the turn (what checks and judges saw)
  checks.json       executable check results
  decision.json     supervisor decision (normalised), score in code, raw replies
  simulator.json    the firewall view, the user simulator's output (continue only), which draft was
                    sent (simulator, simulator_retry, neutral) and the drafts the leak audit stopped
  feedback.txt      the rewritten follow-up the executor got next ("" when none)
  leak.json         leak-audit flags of every draft of that follow-up, and what was sent instead
package/          closed loop, a task with pre_exec: the attempt's copy of the package, pruned
                  after the attempt to the hidden references it was judged against, and
                  package.json (what pre_exec changed); supervisor side, never the executor's
outcome.json      closed loop: stop reason, status, best turn and score
usage.json        closed loop: tokens, calls and cost per role (executor, supervisor, user_simulator)
```
The Parquet row in the `ResultStore` is the commit point; a folder without one belongs to an
unfinished cell and is removed by `ResultStore.clear_partial` on resume.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from clawmark.fsio import atomic_write_bytes

from clawmark.results.identity import ConfigLike, config_hash

_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class UnsafeName(ValueError):
    """A sweep id or cell key that would escape its folder or is not portable."""


def check_name(kind: str, value: str) -> str:
    if not _SAFE_NAME.fullmatch(value or ""):
        raise UnsafeName(f"{kind} {value!r}: expected letters, digits, '.', '_' or '-' (not leading)")
    return value




def last_touched(folder: Path) -> float:
    """Newest mtime of the folder and two levels below it (logs/, transcript/ and their files)."""
    newest = folder.stat().st_mtime
    for child in folder.iterdir():
        newest = max(newest, child.stat().st_mtime)
        if child.is_dir():
            newest = max([newest, *(grand.stat().st_mtime for grand in child.iterdir())])
    return newest


@dataclass(frozen=True)
class AttemptLayout:
    """Named paths of one cell's artifact folder (local filesystem)."""

    root: Path
    sweep_id: str
    cell_key: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))
        check_name("sweep_id", self.sweep_id)
        check_name("cell_key", self.cell_key)

    @property
    def dir(self) -> Path:
        return self.root / self.sweep_id / self.cell_key

    logs = property(lambda self: self.dir / "logs")
    transcript = property(lambda self: self.dir / "transcript")
    artifacts = property(lambda self: self.dir / "artifacts")
    ledger = property(lambda self: self.dir / "ledger.jsonl")
    decisions = property(lambda self: self.dir / "decisions.jsonl")
    patch = property(lambda self: self.dir / "patch.diff")
    raw_patch = property(lambda self: self.dir / "patch.raw.diff")
    report = property(lambda self: self.dir / "report.json")
    eval_log = property(lambda self: self.dir / "eval.log")
    config = property(lambda self: self.dir / "config.json")
    row_json = property(lambda self: self.dir / "row.json")
    cycles = property(lambda self: self.dir / "cycles")
    outcome = property(lambda self: self.dir / "outcome.json")
    usage = property(lambda self: self.dir / "usage.json")

    def cycle(self, turn: int) -> Path:
        """Folder of closed-loop executor turn ``turn`` (0-based), created on first use."""
        folder = self.cycles / str(turn)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def ensure(self) -> AttemptLayout:
        for folder in (self.logs, self.transcript, self.artifacts):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    def is_complete(self) -> bool:
        """True once `row.json` is written (the last artifact of a finished attempt)."""
        return self.row_json.is_file()

    def write_config(self, config: ConfigLike) -> str:
        """Save the resolved config (dict or pydantic model) as `config.json`; return its hash."""
        payload = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
        text = json.dumps(payload, indent=2, sort_keys=True, default=str)
        atomic_write_bytes(self.config, text.encode("utf-8"))
        return config_hash(payload)

    def clear(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
