"""scripts/code_metrics.py counts what it says on a small planted package: each figure is known."""

from __future__ import annotations

import textwrap

import pytest

from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def metrics():
    return load_script("code_metrics")


PLANTED = {
    "pkg/__init__.py": "",
    "pkg/a.py": """
        from typing import Any
        import typing

        def one(x: Any, *rest: Any, **kw: "Any") -> Any:
            from pkg import b  # a circle: b imports a at its top
            return b

        def two(x: list[Any], y: typing.Any) -> int | None:
            import json
            return None
    """,
    "pkg/b.py": """
        from pkg.a import one

        def three():
            return one
    """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/c.py": """
        from ..d import helper

        def four():
            from . import e
            return e
    """,
    "pkg/sub/e.py": "from pkg.sub.c import four\n",
    "pkg/d.py": "def helper():\n    return 1\n" + "# filler\n" * 299,
    "pkg/cli/__init__.py": "",
    "pkg/cli/main.py": """
        def command(flag: Any) -> None:
            import json
            pass
    """,
}


@pytest.fixture(scope="module")
def figures(metrics, tmp_path_factory):
    root = tmp_path_factory.mktemp("planted")
    for name, text in PLANTED.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip())
    return metrics.measure(root, "pkg"), root


def test_each_figure_of_the_planted_tree(figures):
    measured, _ = figures
    assert measured.bare_any == 6  # one: x, *rest, **kw (a string), return; two: typing.Any; cli: flag
    assert measured.function_imports == 3  # the CLI's import does not count
    assert measured.unexplained_imports == ["pkg/a.py:9: import json", "pkg/sub/c.py:4: from . import e"]
    assert measured.cycles == [["pkg.a", "pkg.b"], ["pkg.sub.c", "pkg.sub.e"]]
    assert measured.long_files == ["pkg/d.py (301)"]
    assert sorted(measured.function_lengths) == [2, 2, 3, 3, 3, 3]
    assert measured.median_function == 3


def test_check_exits_one_only_when_a_goal_is_missed(metrics, figures, capsys):
    _, root = figures
    assert metrics.main([str(root), "--package", "pkg"]) == 0
    assert metrics.main([str(root), "--package", "pkg", "--check", "--list"]) == 1
    out = capsys.readouterr().out
    assert "pkg.a -> pkg.b" in out and "MISSED" in out
    assert "pkg/a.py:9: import json" in out


def test_a_clean_tree_passes_the_check(metrics, tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "__init__.py").write_text("def f(x: int) -> int:\n    return x\n")
    assert metrics.main([str(tmp_path), "--package", "ok", "--check"]) == 0
