"""Invariant 6: the core never imports Prefect (it must run and test without a server). The CLI is
the top floor (ARCHITECTURE.md): it may start flows, but only inside a command, so `--help` and
every other command stay free of Prefect. Also: retry and failure meaning are decided by the marker
bases of clawmark.errors, never by a class's name; no flow module uses another's private names."""

from __future__ import annotations

import ast
import builtins
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
LOOKUPS = {"get", "startswith", "endswith", "__contains__"}  # str/dict methods a name could be matched with
BUILTIN_EXCEPTIONS = {name for name, kind in vars(builtins).items() if isinstance(kind, type) and issubclass(kind, BaseException)}


def _exception_class_names(trees: list[ast.AST]) -> set[str]:
    """Every exception class the tree defines (a base chain reaching one, or an *Error/*Exception
    name), with Python's own: the names a string comparison could stand in for."""
    bases = {node.name: [ast.unparse(b).split(".")[-1] for b in node.bases]
             for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        return (name in BUILTIN_EXCEPTIONS or name.endswith(("Error", "Exception"))
                or any(is_exception(b, seen | {name}) for b in bases.get(name, ()) if b not in seen))
    return {name for name in bases if is_exception(name)} | BUILTIN_EXCEPTIONS


def _matches_on_class_names(tree: ast.AST, exception_names: set[str] = BUILTIN_EXCEPTIONS) -> list[int]:
    """Lines deciding by a class's name instead of asking isinstance: a comparison, a `match`, a
    subscript or a str/dict look-up over `__name__`/`__qualname__`/`__mro__`, or over a string that
    names an exception class. (A name in a message or a row field is fine: it decides nothing.)"""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            parts = node.slice
        elif isinstance(node, (ast.Compare, ast.Match)):
            parts = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LOOKUPS:
            parts = node
        else:
            continue
        for part in ast.walk(parts):
            if (isinstance(part, ast.Attribute) and part.attr in NAME_ATTRIBUTES) or (
                    isinstance(part, ast.Constant) and isinstance(part.value, str) and part.value in exception_names):
                lines.add(node.lineno)
    return sorted(lines)


def test_retry_and_failure_decisions_never_match_exception_class_names():
    """Retryable or not is decided by the marker bases of clawmark.errors (isinstance), anywhere in
    the core and the flows, never by what a class is called."""
    trees = {path: _tree(path) for room in (CORE, FLOWS) for path in room.rglob("*.py")}
    names = _exception_class_names(list(trees.values()))
    assert {"Infra", "Permanent", "ModelError", "AttemptStopped", "TimeoutError"} <= names
    offenders = {str(path.relative_to(ROOT)): lines for path, tree in trees.items()
                 if (lines := _matches_on_class_names(tree, names))}
    assert offenders == {}, f"class-name matching (use the marker bases of clawmark.errors): {offenders}"


def test_name_matching_check_can_fail():
    planted = ast.parse(
        "def f(exc):\n"
        "    return any(k.__name__ in NAMES for k in type(exc).__mro__)\n"  # 2: compare over __name__
        "def g(exc):\n"
        "    return RETRY[type(exc).__name__]\n"  # 4: subscript
        "def h(exc):\n"
        "    return RETRY.get(exc.__class__.__qualname__, False)\n"  # 6: look-up
        "def i(kind):\n"
        "    return kind in {'RateLimitError', 'ConnectionError'}\n"  # 8: an exception's name as a string
        "def j(exc):\n"
        "    match type(exc).__name__:\n"  # 10: match
        "        case 'OSError': return True\n"
        "def k(exc):\n"
        "    return f'{type(exc).__name__}: {exc}', Row(failure_reason=type(exc).__name__)\n"  # said, not decided
    )
    assert _matches_on_class_names(planted, {"RateLimitError", *BUILTIN_EXCEPTIONS}) == [2, 4, 6, 8, 10]
    names = _exception_class_names([ast.parse("class Lost(Infra): pass\nclass Infra(Exception): pass\nclass Row: pass\n")])
    assert "Lost" in names and "Row" not in names


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
    """`from flows.x import _name` (or `from .x import _name`), or `x._name` on a flows module imported
    as `from flows import x`."""
    tree, found, aliases = _tree(path), [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:  # `from .sweep import _x` inside flows/
            module = "flows" + (f".{node.module}" if node.module else "")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "flows":
            module = node.module
        else:
            module = None
        if module:
            found += [f"{module}.{a.name}" for a in node.names if module != "flows" and a.name.startswith("_")]
            if module == "flows":
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
                      "import flows.sweep\nlocal._engine_back(1)\nflows.sweep._x\nlocal.__name__\n"
                      "from .pool import _spend\nfrom . import cell\ncell._lease()\n")
    assert sorted(_private_uses_across_flows(shared)) == ["cell._lease", "flows.pool._spend", "flows.sweep._store",
                                                          "flows.sweep._x", "local._engine_back"]
