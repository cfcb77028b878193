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
