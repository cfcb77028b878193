"""Invariant 6: the core never imports Prefect (it must run and test without a server). The CLI is
the top floor (ARCHITECTURE.md): it may start flows, but only inside a command, so `--help` and
every other command stay free of Prefect."""

from __future__ import annotations

import ast
from pathlib import Path

import clawmark

CORE = Path(clawmark.__file__).parent
ORCHESTRATION = {"prefect", "flows", "blocks"}


def _roots(nodes) -> set[str]:
    roots = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_core_never_imports_prefect_or_flows():
    offenders = {
        str(path.relative_to(CORE.parent)): sorted(_roots(ast.walk(_tree(path))) & ORCHESTRATION)
        for path in CORE.rglob("*.py") if "cli" not in path.relative_to(CORE).parts
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}, f"core modules importing orchestration: {offenders}"


def test_cli_imports_orchestration_only_inside_commands():
    offenders = {
        str(path.relative_to(CORE.parent)): sorted(_roots(_tree(path).body) & ORCHESTRATION)
        for path in (CORE / "cli").rglob("*.py")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}, f"CLI modules importing orchestration at import time: {offenders}"


def test_core_files_exist_to_check():
    assert len(list(CORE.rglob("*.py"))) > 20


ROOT = CORE.parent
FLOWS = ROOT / "flows"
NAME_ATTRIBUTES = {"__name__", "__qualname__", "__mro__"}


def _matches_on_class_names(tree: ast.AST) -> list[int]:
    """Lines comparing a class's name (or walking its MRO by name) instead of asking isinstance."""
    return sorted({
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
        for part in ast.walk(node) if isinstance(part, ast.Attribute) and part.attr in NAME_ATTRIBUTES
    })


def test_retry_and_failure_decisions_never_match_exception_class_names():
    rooms = [CORE / "attempts", FLOWS]
    offenders = {
        str(path.relative_to(ROOT)): lines
        for room in rooms for path in room.rglob("*.py") if (lines := _matches_on_class_names(_tree(path)))
    }
    assert offenders == {}, f"class-name matching (use the marker bases of clawmark.errors): {offenders}"


def test_name_matching_check_can_fail():
    planted = ast.parse("def f(exc):\n    return any(k.__name__ in NAMES for k in type(exc).__mro__)\n")
    assert _matches_on_class_names(planted) == [2]


def test_never_retried_failures_carry_the_permanent_marker():
    from clawmark.attempts.stages import AttemptStopped, retryable
    from clawmark.claws.base import ClawError, UnknownClaw
    from clawmark.errors import Infra, Permanent
    from clawmark.gateway.errors import ModelError
    from clawmark.judge.agent import AgentJudgeError
    from clawmark.runtime.errors import ArchiveTooLarge, ExecTimeout, OutOfMemory, RuntimeFailure
    from clawmark.swe.errors import HistoryLeak, InstanceUnbuildable, PatchTooLarge, PredictionsError, SweRunError
    from clawmark.taskenv.errors import PreExecFailed

    never = [PreExecFailed, HistoryLeak, PatchTooLarge, InstanceUnbuildable, PredictionsError, OutOfMemory,
             ArchiveTooLarge, UnknownClaw, ExecTimeout, AgentJudgeError, ModelError, AttemptStopped]
    assert [kind.__name__ for kind in never if not issubclass(kind, Permanent)] == []
    assert all(issubclass(kind, Infra) for kind in (RuntimeFailure, SweRunError, ClawError))
    assert retryable(ClawError("claw set-up failed")) and not retryable(UnknownClaw("x", ["y"]))


def _private_uses_across_flows(path: Path) -> list[str]:
    """`from flows.x import _name`, or `x._name` on a flows module imported as `from flows import x`."""
    tree, found, aliases = _tree(path), [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "flows":
            found += [f"{node.module}.{a.name}" for a in node.names if node.module != "flows" and a.name.startswith("_")]
            if node.module == "flows":
                aliases |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name.startswith("flows.")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner in aliases:
                found.append(f"{owner}.{node.attr}")
    return found


def test_flows_use_no_private_name_of_another_flow_module(tmp_path):
    offenders = {path.name: uses for path in FLOWS.glob("*.py") if (uses := _private_uses_across_flows(path))}
    assert offenders == {}, f"flows importing private names of other flows: {offenders}"
    assert len(list(FLOWS.glob("*.py"))) > 5
    shared = tmp_path / "shared.py"  # the shapes this tree had before flows/coordinate.py
    shared.write_text("from flows.sweep import _store, headline\nfrom flows import sweep as local\n"
                      "import flows.sweep\nlocal._engine_back(1)\nflows.sweep._x\nlocal.__name__\n")
    assert _private_uses_across_flows(shared) == ["flows.sweep._store", "flows.sweep._x", "local._engine_back"]
