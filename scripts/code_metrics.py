"""Measure how readable the package's shape is, on the tree as it stands (`ast`, nothing imported).

    python scripts/code_metrics.py [ROOT] [--package clawmark] [--check] [--list]

Figures (goal beside each): parameters and returns annotated bare `Any`; imports inside functions
in the core (the package minus its `cli`), and how many of those carry no reason comment on their
line; import cycles among the package's modules, function-level imports included; files over 300
lines; median function length. Exits 0 (it measures); `--check` exits 1 when a goal is missed.
`--list` names every cycle, unexplained function-level import and long file.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_LINES = 300


@dataclass
class Figures:
    bare_any: int = 0
    function_imports: int = 0
    unexplained_imports: list[str] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    long_files: list[str] = field(default_factory=list)
    function_lengths: list[int] = field(default_factory=list)

    @property
    def median_function(self) -> float:
        return statistics.median(self.function_lengths) if self.function_lengths else 0.0

    def rows(self) -> list[tuple[str, float, float]]:
        return [("bare Any annotations", self.bare_any, 40),
                ("function-level imports (core)", self.function_imports, 40),
                ("  of which without a reason comment", len(self.unexplained_imports), 0),
                ("import cycles", len(self.cycles), 0),
                (f"files over {MAX_FILE_LINES} lines", len(self.long_files), 0),
                ("median function length", self.median_function, 9)]

    def missed(self) -> list[str]:
        return [name for name, value, goal in self.rows() if value > goal]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_bare_any(annotation: ast.expr | None) -> bool:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() in ("Any", "typing.Any")
    if isinstance(annotation, ast.Name):
        return annotation.id == "Any"
    return isinstance(annotation, ast.Attribute) and annotation.attr == "Any"


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def count_bare_any(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    annotations = [param.annotation for param in params if param is not None] + [function.returns]
    return sum(_is_bare_any(annotation) for annotation in annotations)


def _nested_imports(function: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Imports in a function's own body (a nested function's are counted with it, once)."""
    found, stack = [], list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def imported_modules(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute names an import statement brings in (a `from X import y` may name module X.y)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
        base = ".".join([*anchor, base] if base else anchor)
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(cycles)


def _edges(tree: ast.Module, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """Modules of the package this one imports, at any depth. A package's `__init__` is not an
    edge when a submodule of it is what is imported (`from a.b import c` needs a.b.c, not a.b)."""
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = imported_modules(node, module, is_package)
            precise = [name for name in names[1:] if name in modules] if isinstance(node, ast.ImportFrom) else []
            targets |= set(precise) if precise else {name for name in names if name in modules}
    targets.discard(module)
    return targets


def measure(root: Path, package: str = "clawmark") -> Figures:
    figures = Figures()
    files = sorted((root / package).rglob("*.py"))
    modules = {module_name(path, root): path for path in files}
    graph: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        module = module_name(path, root)
        graph[module] = _edges(tree, module, path.name == "__init__.py", set(modules))
        relative = str(path.relative_to(root))
        if len(lines) > MAX_FILE_LINES:
            figures.long_files.append(f"{relative} ({len(lines)})")
        in_core = "cli" not in path.relative_to(root / package).parts
        for function in _functions(tree):
            figures.bare_any += count_bare_any(function)
            figures.function_lengths.append(function.end_lineno - function.lineno + 1)
            if not in_core:
                continue
            for node in _nested_imports(function):
                figures.function_imports += 1
                if "#" not in lines[node.end_lineno - 1]:
                    figures.unexplained_imports.append(f"{relative}:{node.lineno}: {ast.unparse(node)}")
    figures.cycles = find_cycles(graph)
    return figures


def report(figures: Figures, listing: bool) -> str:
    out = [f"{name:<40} {value:>7g}   goal <= {goal:g}{'' if value <= goal else '   MISSED'}"
           for name, value, goal in figures.rows()]
    if listing:
        out += ["", "import cycles:", *(" -> ".join(cycle) for cycle in figures.cycles)]
        out += ["", "function-level imports without a reason comment:", *figures.unexplained_imports]
        out += ["", f"files over {MAX_FILE_LINES} lines:", *figures.long_files]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--package", default="clawmark")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--list", action="store_true", help="name each cycle, unexplained import, long file")
    args = parser.parse_args(argv)
    figures = measure(Path(args.root), args.package)
    print(report(figures, args.list))
    return 1 if args.check and figures.missed() else 0


if __name__ == "__main__":
    sys.exit(main())
