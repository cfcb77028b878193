"""Put test files where the layout wants them, with `git mv`, and rewrite what points at them.

    python scripts/place_tests.py [--dry-run]

- A `tests/unit/test_*.py` lying directly in `tests/unit/` moves into the room it tests,
  `tests/unit/<room>/`, chosen by its name's prefix (ROOMS); a prefix no room claims stops the
  script naming the file, so a new room is a deliberate line here, not a guess.
- A test under `tests/unit/` marked `docker` (`pytestmark = pytest.mark.docker`, or the decorator)
  moves to `tests/integration/`: `scripts/run-tests.sh` runs `tests/unit` while the images are
  still building, the Docker folders after.
- Shared helpers and test doubles move to the one support package, `tests/support/` (HELPERS).
- Then every tracked text file is rewritten: dotted module names (`tests.unit.test_x`,
  `tests.unit.gateway_fakes`) and paths (`tests/unit/test_x.py`), and a moved file's own
  `Path(__file__)...parents[N]` by how many folders deeper it now is (new tests had better take
  `REPO`, `FIXTURES`, `UCB_SAMPLE` from tests/support/paths.py, which no move breaks).

Idempotent: on a tree already in place it moves nothing. Run it after merging a branch that
added tests in the old places; check with `pytest --collect-only -q tests` (same count before and after).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from tree_rewrite import REPO, moved_file_substitutions, rewrite_tracked

UNIT = Path("tests/unit")

# File-name prefix after `test_` -> folder under tests/unit/ (the code's rooms; `ground` the ground
# floor's modules; `codebase` the checks of the whole tree: layering, settings, dependencies,
# metrics, module names). Longest prefix wins.
ROOMS = {
    "analysis": "analysis", "report": "analysis", "lite": "analysis",
    "attempt": "attempts", "attempts": "attempts", "rejudge": "attempts", "credential_rule": "attempts",
    "usage_row_check": "attempts",
    "audit": "audit",
    "blocks": "blocks",
    "catalog": "catalog", "suite_rows": "catalog",
    "claws": "claws",
    "cli": "cli", "doctor": "cli", "server_cli": "cli", "image_progress": "cli", "sweep_output": "cli",
    "flows": "flows",
    "gateway": "gateway",
    "judge": "judge",
    "results": "results", "stores": "results", "imports": "results",
    "runtime": "runtime", "images": "runtime",
    "swe": "swe",
    "sweeps": "sweeps", "sweep": "sweeps",
    "taskenv": "taskenv", "desktop": "taskenv",
    "webproxy": "webproxy",
    "layering": "codebase", "settings": "codebase", "dependencies": "codebase", "code_metrics": "codebase",
    "module_names": "codebase",
    "stopwatch": "ground", "language": "ground", "errors": "ground", "fsio": "ground", "failpoint": "ground",
}

# Shared helpers and doubles -> the support package. (Left beside their tests: tests/claws/kit.py,
# the conformance kit, is itself under test; tests/faults/private_engine.py and
# engine_race_worker.py are the fault tests' own machinery.)
HELPERS = {
    "tests/unit/claws_host.py": "tests/support/claws_host.py",
    "tests/unit/gateway_fakes.py": "tests/support/gateway_fakes.py",
    "tests/unit/judge_support.py": "tests/support/judge_tasks.py",
    "tests/unit/swe_run_repos.py": "tests/support/swe_run_repos.py",
    "tests/published_tables.py": "tests/support/published_tables.py",
    "tests/report_rows.py": "tests/support/report_rows.py",
    "tests/s3_server.py": "tests/support/s3_server.py",
    "tests/integration/attempt_support.py": "tests/support/attempt_fixtures.py",
    "tests/integration/closed_loop_support.py": "tests/support/closed_loop_fixtures.py",
    "tests/integration/desktop_support.py": "tests/support/desktop_fixtures.py",
    "tests/integration/taskenv_support.py": "tests/support/taskenv_fixtures.py",
    "tests/integration/webproxy_support.py": "tests/support/webproxy_fixtures.py",
    "tests/integration/audit_sample_runs.py": "tests/support/audit_sample_runs.py",
    "tests/faults/support.py": "tests/support/fault_sweeps.py",
    "tests/faults/fake_upstream.py": "tests/support/fake_upstream.py",
    "tests/e2e/prefect_server.py": "tests/support/prefect_server.py",
}

DOCKER_MARK = re.compile(r"^pytestmark\s*=.*\bmark\.docker\b|^@pytest\.mark\.docker\b", re.M)


def room_of(name: str) -> str | None:
    stem = name.removeprefix("test_").removesuffix(".py")
    matches = [p for p in ROOMS if stem == p or stem.startswith(p + "_")]
    return ROOMS[max(matches, key=len)] if matches else None


def planned_moves() -> dict[str, str]:
    moves = {old: new for old, new in HELPERS.items() if (REPO / old).is_file()}
    unplaced = []
    for path in sorted((REPO / UNIT).glob("test_*.py")):
        if DOCKER_MARK.search(path.read_text(encoding="utf-8")):
            moves[f"{UNIT}/{path.name}"] = f"tests/integration/{path.name}"
        elif room := room_of(path.name):
            moves[f"{UNIT}/{path.name}"] = f"{UNIT}/{room}/{path.name}"
        else:
            unplaced.append(path.name)
    for path in sorted((REPO / UNIT).glob("*/test_*.py")):  # a Docker test put in a room folder
        if DOCKER_MARK.search(path.read_text(encoding="utf-8")):
            moves[str(path.relative_to(REPO))] = f"tests/integration/{path.name}"
    if unplaced:
        sys.exit(f"no room for {', '.join(unplaced)}: add its prefix to ROOMS in {Path(__file__).name}")
    if taken := [new for new in moves.values() if (REPO / new).exists()]:
        sys.exit(f"already there, not overwritten: {', '.join(taken)}")
    return moves


def earlier_moves() -> dict[str, str]:
    """What earlier runs moved, so a file merged in later that still names an old place is fixed too."""
    placed = {f"{UNIT}/{path.name}": str(path.relative_to(REPO)) for path in (REPO / UNIT).glob("*/test_*.py")}
    return {**HELPERS, **placed}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True, text=True).stdout


def ensure_package(folder: Path) -> None:
    """Every test folder is a package: same-named files in two folders stay distinct modules."""
    init = REPO / folder / "__init__.py"
    if not init.exists():
        init.parent.mkdir(parents=True, exist_ok=True)
        init.write_text("")
        git("add", str(init.relative_to(REPO)))


def deeper(text: str, by: int) -> str:
    """`Path(__file__)[.resolve()].parents[N]` -> N + by, so a moved file still finds the repo."""
    pattern = re.compile(r"(__file__\)(?:\.resolve\(\))?\.parents\[)(\d+)\]")
    return pattern.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + by}]", text)


def rewrite_references(moves: dict[str, str]) -> list[str]:
    subs = [sub for old, new in moves.items() for sub in moved_file_substitutions(old, new)]
    return [name for name, _text, changed in rewrite_tracked(subs, skip=Path(__file__)) if changed]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    args = parser.parse_args()
    moves = planned_moves()
    for old, new in moves.items():
        print(f"{old} -> {new}")
    if args.dry_run:
        return
    for old, new in moves.items():
        ensure_package(Path(new).parent)
        git("mv", old, new)
        by = len(Path(new).parts) - len(Path(old).parts)
        if by:
            moved = REPO / new
            moved.write_text(deeper(moved.read_text(encoding="utf-8"), by), encoding="utf-8")
    for name in rewrite_references({**earlier_moves(), **moves}):
        print(f"  rewrote references in {name}")


if __name__ == "__main__":
    main()
