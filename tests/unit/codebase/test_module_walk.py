"""scripts/module_walk.py: one attempt of each track, from `clawmark run` to its row, enters
each module once (issue 22: a skeleton that does not bounce between modules)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.attempts.patch import run_patch_attempt
from clawmark.cli.main import app
from clawmark.results import ResultStore, Status
from tests.support.claws_host import INI, instance
from tests.support.scripts import load_script
from tests.unit.attempts.test_attempt_errors import (
    NotAGateway,  # provision fails before any container
)
from tests.unit.catalog.test_catalog_content import POINTER
from tests.unit.catalog.test_catalog_tasks import make_task


@pytest.fixture(scope="module")
def module_walk():
    return load_script("module_walk")


@pytest.mark.parametrize("track", ["patch", "closed-loop"])
def test_an_attempt_walks_from_the_cli_to_the_store_entering_each_module_once(module_walk, track):
    steps = module_walk.walk(track)
    modules = module_walk.modules(steps)
    assert modules[0] == "clawmark.cli.run"
    assert modules[-1] == "clawmark.results.store"
    assert modules[1:3] == [f"clawmark.attempts.{track.replace('-', '_')}", "clawmark.attempts.stages"]
    assert module_walk.revisits(steps) == []
    # no allowance: were one needed, it would be listed here with its reason
    assert [s.stage for s in steps if s.stage][-1] == "record"


def test_the_walk_covers_every_stage_of_the_tracks_plan(module_walk):
    walked = {s.stage for s in module_walk.walk("closed-loop") if s.stage}
    assert walked == {"provision", "inject", "executor-turn", "supervise", "follow-up", "teardown", "record"}
    walked = [s.stage for s in module_walk.walk("patch") if s.stage]
    assert walked == ["provision", "executor-turn", "extract-patch", "teardown", "evaluate", "record"]


def test_a_walk_that_comes_back_to_a_module_it_left_is_named(module_walk):
    step = module_walk.Step
    bouncing = [step("a", "f"), step("b", "g"), step("b", "h"), step("a", "i"), step("c", "j"), step("b", "k")]
    assert module_walk.modules(bouncing) == ["a", "b", "a", "c", "b"]
    assert module_walk.revisits(bouncing) == ["a", "b"]


def test_a_call_the_walk_names_but_the_code_no_longer_makes_fails_loudly(module_walk):
    with pytest.raises(LookupError, match="no longer calls run_stages"):
        module_walk._check_calls(module_walk.modules, "run_stages")


def _walk_order(module_walk, traced, track):
    """The traced steps' positions in the walk: a run goes part of the way, never back."""
    walked = module_walk.walk(track)
    return [walked.index(step) for step in traced]


def test_a_refused_closed_loop_run_from_the_cli_enters_the_walk_in_its_order(module_walk, tmp_path, monkeypatch):
    """No engine is reachable: the task is refused before provisioning and its row committed."""
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    make_task(tmp_path / "tree" / "lfs_task", spec={"task_id": "lfs_task"}, files={"sources/paper.pdf": POINTER})
    args = ["run", "lfs_task", "--tasks", str(tmp_path / "tree"), "--claw", "reference",
            "--model", "scripted/cl-{task_id}", "--results", str(tmp_path / "results"), "--json"]
    result = []
    traced = module_walk.trace("closed-loop", lambda: result.append(CliRunner().invoke(app, args)))
    assert "task_unrunnable" in result[0].output
    assert [(s.module.rsplit(".", 1)[-1], s.function) for s in traced] == [
        ("run", "run"), ("run", "_run_closed_loop"), ("stages", "run_stages"), ("closed_loop_finish", "teardown"),
        ("closed_loop_finish", "record"), ("base", "AttemptState.commit"), ("store", "ResultStore.write")]
    order = _walk_order(module_walk, traced, "closed-loop")
    assert order == sorted(order) and module_walk.revisits(traced) == []


def test_a_patch_attempt_failing_at_provision_enters_the_walk_in_its_order(module_walk, tmp_path):
    store = ResultStore(tmp_path / "results")
    rows = []
    traced = module_walk.trace("patch", lambda: rows.append(
        run_patch_attempt(instance(INI), "nop", "none", 0, store, "unit", NotAGateway())))
    assert rows[0].status is Status.HARNESS_ERROR and store.has("unit", rows[0].cell_key)
    assert [s.function for s in traced] == ["run_patch_attempt", "run_stages", "provision", "teardown", "record",
                                            "AttemptState.commit", "ResultStore.write"]
    order = _walk_order(module_walk, traced, "patch")
    assert order == sorted(order) and module_walk.revisits(traced) == []
