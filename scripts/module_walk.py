"""The modules one attempt of each track passes through, in order, from `clawmark run` to its row.

    PYTHONPATH=. python scripts/module_walk.py

A whole attempt needs Docker (provision starts a container), so the walk is read from the code
itself, not from a run: the CLI command, the track's runner and front door, the stage loop, the
stages of the track's own plan table (`plan_by_name`, in the table's order, which is the order each
stage names the next in) and its clean-up and record stages, the state's commit and the store's
write. Each call of the spine is checked in the caller's source (`ast`), so a renamed or moved
function breaks the walk instead of leaving it stale. A stage wrapped by its track (a closure over
the `Stage`, e.g. the closed loop's `_announced`) is followed to the function it wraps; the wrapper
is named beside it.

A module is *revisited* when the walk, consecutive repeats collapsed, comes back to a module it had
left: the skeleton bouncing between modules, what issue 22 asks to be absent.

`trace(track, action)` checks the walk against a real run: the functions of the walk that
`action` enters, in the order it enters them (`sys.setprofile`). A run that needs no Docker goes
only part of the way (a refused closed-loop task from the CLI, a patch attempt whose gateway
fails at provision), so its steps are a part of the walk, in the walk's order
(tests/unit/codebase/test_module_walk.py).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from clawmark.attempts.base import AttemptState
from clawmark.attempts.stages import Stage, TrackStages
from clawmark.results.store import ResultStore


@dataclass(frozen=True)
class Step:
    module: str
    function: str
    stage: str | None = None
    via: str | None = None  # the track's wrapper the stage runs inside


@dataclass(frozen=True)
class Track:
    runner: str  # the CLI's function for the track, in clawmark/cli/run.py
    front_door: str  # "module:function" the runner calls
    stages: str  # "module:NAME" of the track's TrackStages


TRACKS = {
    "patch": Track("_run_patch", "clawmark.attempts.patch:run_patch_attempt",
                   "clawmark.attempts.patch_stages:PATCH_STAGES"),
    "closed-loop": Track("_run_closed_loop", "clawmark.attempts.closed_loop:run_closed_loop_attempt",
                         "clawmark.attempts.closed_loop_stages:CLOSED_LOOP_STAGES"),
}
CLI_COMMAND = "clawmark.cli.run:run"


def walk(track: str) -> list[Step]:
    """The steps of one attempt of `track`, each call checked in its caller's source."""
    return [step for step, _ in _spine(track)]


def trace(track: str, action: Callable[[], object]) -> list[Step]:
    """The steps of the walk of `track` that `action` enters, each entry in order."""
    steps = {fn.__code__: step for step, fn in _spine(track)}
    entered: list[Step] = []

    def profile(frame, event, arg) -> None:  # noqa: ANN001 - sys.setprofile's hook signature
        if event == "call" and frame.f_code in steps:
            entered.append(steps[frame.f_code])

    before = sys.getprofile()
    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(before)
    return entered


def _spine(track: str) -> list[tuple[Step, Callable[..., object]]]:
    spec = TRACKS[track]
    command = _resolve(CLI_COMMAND)
    runner = _resolve(f"clawmark.cli.run:{spec.runner}")
    front_door = _resolve(spec.front_door)
    stages: TrackStages = _resolve(spec.stages)
    chain = [command, runner, front_door]
    for caller, callee in zip(chain, chain[1:]):
        _check_calls(caller, callee.__name__)
    _check_calls(front_door, "run_stages")
    chain.append(_resolve("clawmark.attempts.stages:run_stages"))
    spine = [(_step(fn), fn) for fn in chain]
    spine += [_stage_step(stage) for stage in _planned(stages)]
    _check_calls(_unwrapped(stages.record)[0], "commit")
    _check_calls(AttemptState.commit, "write")
    return spine + [(_step(fn), fn) for fn in (AttemptState.commit, ResultStore.write)]


def modules(steps: list[Step]) -> list[str]:
    """The walk's modules in order, consecutive repeats collapsed."""
    collapsed: list[str] = []
    for step in steps:
        if not collapsed or collapsed[-1] != step.module:
            collapsed.append(step.module)
    return collapsed


def revisits(steps: list[Step]) -> list[str]:
    """Modules the walk comes back to after leaving them, in the order it comes back."""
    seen: set[str] = set()
    again: list[str] = []
    for module in modules(steps):
        if module in seen:
            again.append(module)
        seen.add(module)
    return again


def _planned(track: TrackStages) -> list[Stage]:
    """The plan table's stages in its order, then clean-up (unless planned) and record."""
    table = inspect.getclosurevars(track.plan).nonlocals["stages"]
    planned = list(table.values())
    names = {stage.name for stage in planned}
    tail = [stage for stage in (track.cleanup,) if stage.name not in names]
    return [*planned, *tail, track.record]


def _stage_step(stage: Stage) -> tuple[Step, Callable[..., object]]:
    run, via = _unwrapped(stage)
    return Step(run.__module__, run.__qualname__, stage=stage.name, via=via), run


def _unwrapped(stage: Stage) -> tuple[Callable[..., object], str | None]:
    """The stage's own function, and the wrapper around it if its track wrapped it."""
    run = stage.run
    inner = [v for v in inspect.getclosurevars(run).nonlocals.values() if isinstance(v, Stage)]
    if inner:
        return inner[0].run, f"{run.__module__}.{run.__qualname__.split('.')[0]}"
    return run, None


def _step(fn: Callable[..., object]) -> Step:
    return Step(fn.__module__, fn.__qualname__)


def _resolve(ref: str) -> object:
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def _check_calls(caller: Callable[..., object], callee: str) -> None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(caller)))
    called = {node.func.id if isinstance(node.func, ast.Name) else node.func.attr
              for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))}
    if callee not in called:
        raise LookupError(f"{caller.__module__}.{caller.__qualname__} no longer calls {callee}: "
                          "the walk in scripts/module_walk.py is out of date")


def main() -> None:
    for track in TRACKS:
        steps = walk(track)
        print(f"{track}:")
        for step in steps:
            stage = f"  [{step.stage}]" if step.stage else ""
            via = f"  (inside {step.via})" if step.via else ""
            print(f"  {step.module:40} {step.function}{stage}{via}")
        print("  modules: " + " → ".join(modules(steps)))
        print(f"  revisited: {', '.join(revisits(steps)) or 'none'}")


if __name__ == "__main__":
    main()
