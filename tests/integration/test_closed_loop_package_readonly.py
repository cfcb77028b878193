"""A task package is a read-only input, through whole attempts (real containers, real gateway,
reference claw on a scripted model): a parallel-safe task whose pre_exec regenerates a source and
a hidden reference next to itself, run twice at once and once more alone. The package stays byte
for byte as released, the three cells have one key, and each attempt is judged against its own
regenerated reference: its check compares the deliverable (copied from the attempt's own
regenerated source) with the reference the attempt's pre_exec wrote, and the attempt's folder
keeps that reference under package/."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from clawmark.catalog import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    copied_task,
    cycle_json,
    decision,
    gateway,
    store,
)

pytestmark = pytest.mark.docker
REGENERATE = """import json, pathlib, time, uuid
root = pathlib.Path(__file__).resolve().parent.parent
stamp = uuid.uuid4().hex
(root / "sources" / "stamp.json").write_text(json.dumps({"stamp": stamp}))
time.sleep(1)  # long enough for the two attempts' scripts to overlap
(root / "references" / "answer.json").write_text(json.dumps({"total": 790.0, "top_region": "East", "stamp": stamp}))
"""
CHECKS = """checks:
  - id: stamp_is_this_attempts
    checkpoint: C3
    kind: equals_reference
    path: results/summary.json
    pointer: stamp
    reference: references/answer.json
    reference_pointer: stamp
"""
DELIVER = """python3 - <<'PY'
import json
stamp = json.load(open('/tmp_workspace/clawbench/sources/stamp.json'))['stamp']
json.dump({'total': 790.0, 'top_region': 'East', 'stamp': stamp}, open('/tmp_workspace/results/summary.json', 'w'))
PY"""


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def regenerating_task(tmp_path):
    folder = copied_task(tmp_path)
    (folder / "ops").mkdir()
    (folder / "ops" / "regen.py").write_text(REGENERATE)
    (folder / "references" / "checks.yaml").write_text(CHECKS)
    spec = (folder / "task.yaml").read_text()
    (folder / "task.yaml").write_text(spec + "pre_exec:\n  - ops/regen.py\npre_exec_parallel_safe: true\n")
    for path in [folder, *folder.rglob("*")]:  # a released package: nothing in it is writable
        path.chmod(0o555 if path.is_dir() else 0o444)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_concurrent_attempts_leave_the_package_alone_and_keep_one_cell_key(regenerating_task, store, gateway,
                                                                            cassettes):  # noqa: F811
    task = load_task(regenerating_task)
    released = tree_bytes(regenerating_task)
    executor = cassettes("cl-regen-exec", [{"content": "", "tool_calls": [{"name": "bash", "arguments": {
        "command": DELIVER}}]}, {"content": "Saved results/summary.json."}])
    supervisor = cassettes("sup-regen-pass", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    rows: dict[str, object] = {}

    def run(sweep: str) -> None:
        rows[sweep] = attempt(task, executor, store, gateway, supervisor_model=supervisor, sweep_id=sweep)

    together = [threading.Thread(target=run, args=(sweep,)) for sweep in ("together-a", "together-b")]
    for thread in together:
        thread.start()
    for thread in together:
        thread.join()
    run("quiet")

    assert tree_bytes(regenerating_task) == released  # byte for byte, every file
    assert load_task(regenerating_task).content_hash() == task.content_hash()
    assert len({row.cell_key for row in rows.values()}) == 1
    stamps = []
    for sweep, row in rows.items():
        assert row.status == Status.PASS, (sweep, row.error_message)
        [check] = cycle_json(row, 0, "checks.json")
        assert check["passed"], (sweep, check)  # judged against the reference its own pre_exec wrote
        kept = Path(row.artifacts_dir) / "package"
        answer = json.loads((kept / task.package_dir.name / "references" / "answer.json").read_text())
        manifest = json.loads((kept / "package.json").read_text())
        assert manifest["changed_by_pre_exec"] == ["references/answer.json", "sources/stamp.json"]
        assert not list(kept.rglob("sources"))  # only the hidden references are kept
        stamps.append(answer["stamp"])
    assert len(set(stamps)) == 3
