"""Invariant 6: the core never imports Prefect (it must run and test without a server)."""

from __future__ import annotations

import ast
from pathlib import Path

import clawmark

CORE = Path(clawmark.__file__).parent


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_never_imports_prefect_or_flows():
    offenders = {
        str(path.relative_to(CORE.parent)): sorted(_imported_roots(path) & {"prefect", "flows", "blocks"})
        for path in CORE.rglob("*.py")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}, f"core modules importing orchestration: {offenders}"


def test_core_files_exist_to_check():
    assert len(list(CORE.rglob("*.py"))) > 20
