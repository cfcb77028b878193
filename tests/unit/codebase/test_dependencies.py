"""Declared dependencies are the imported ones: pyproject's `dependencies` are exactly the
distributions the shipped packages import, and the tests import nothing the `test` extra (or the
core) does not declare."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.support.paths import REPO

SHIPPED = ("clawmark", "flows", "analysis", "blocks")
FIRST_PARTY = {*SHIPPED, "tests", "bench", "__future__"}
# Imported by modules that run elsewhere, not in this environment: declared where they are installed.
RUNS_ELSEWHERE = {
    "genericagent": "clawmark/claws/genericagent_rounds.py runs inside GenericAgent's claw image",
    "minisweagent": "clawmark/claws/mini_continue.py runs inside mini-swe-agent's claw image",
    "mitmproxy": "clawmark/webproxy/addon.py runs in .venv-webproxy (the `webproxy` extra)",
}
# Declared and loaded by name, not by an import statement: uvicorn's http="httptools", loop="uvloop".
LOADED_BY_NAME = {"httptools": "clawmark/gateway/serving.py", "uvloop": "clawmark/gateway/serving.py"}
SHIPPED_WITH = {"pydantic-core": "pydantic"}  # pydantic pins its own core; depending on it is depending on pydantic


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_canonical(re.split(r"[\s<>=!~\[;]", spec, maxsplit=1)[0]) for spec in requirements}


def imported_distributions(*folders: str) -> dict[str, set[str]]:
    """Distribution -> files importing it (module- or function-level), for the given folders."""
    owners = packages_distributions()
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for top in {name.split(".")[0] for name in names}:
                    if top in sys.stdlib_module_names or top in FIRST_PARTY or top in RUNS_ELSEWHERE:
                        continue
                    dist = _canonical(owners.get(top, [top])[0])
                    found.setdefault(SHIPPED_WITH.get(dist, dist), set()).add(str(path.relative_to(REPO)))
    return found


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_dependencies_are_exactly_what_the_shipped_packages_import():
    declared = _requirement_names(_project()["dependencies"])
    imported = imported_distributions(*SHIPPED)
    undeclared = {dist: sorted(files)[:3] for dist, files in imported.items() if dist not in declared}
    assert undeclared == {}, f"imported but not in pyproject's dependencies: {undeclared}"
    assert sorted(declared - set(imported) - set(LOADED_BY_NAME)) == [], "declared in pyproject but imported nowhere"
    for dist, user in LOADED_BY_NAME.items():  # the name that loads it is still there
        assert f'"{dist}"' in (REPO / user).read_text(encoding="utf-8"), f"{user} no longer loads {dist}"


def test_tests_import_only_declared_distributions():
    project = _project()
    declared = _requirement_names(project["dependencies"] + project["optional-dependencies"]["test"])
    imported = imported_distributions("tests")
    undeclared = {dist: sorted(files)[:3] for dist, files in imported.items() if dist not in declared}
    assert undeclared == {}, f"tests import distributions the test extra does not declare: {undeclared}"


def test_a_missing_declaration_would_show():
    assert {"requests", "pyyaml"} <= set(imported_distributions("clawmark"))
    assert _requirement_names(["moto[s3]>=5.1", "PyYAML>=6.0", "flask_cors>=5"]) == {"moto", "pyyaml", "flask-cors"}
