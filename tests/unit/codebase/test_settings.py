"""Every CLAWMARK_* variable is a field of one settings class, read when used, and the README's
table is that class: a variable read anywhere else in the code, or a table that drifts, fails here."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from clawmark.settings import PROJECT_ROOT, PREFIX, Settings, SettingsError, env_name, settings, settings_table

SCANNED = ("clawmark", "flows", "analysis", "blocks")
SETTINGS_FILE = PROJECT_ROOT / "clawmark" / "settings.py"


def _environ_names(tree: ast.AST) -> set[str]:
    """Local names of `os.environ` (`from os import environ as X`); a parameter named environ is not one."""
    return {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module == "os" for alias in node.names if alias.name == "environ"}


def _read_keys(tree: ast.AST):
    """(line, key expression) of every read of one environment variable: environ.get(k), getenv(k),
    environ[k] (not as an assignment target), k in environ."""
    names = _environ_names(tree)

    def _is_environ(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name) and node.id in names)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if isinstance(func, ast.Attribute) and ((func.attr == "get" and _is_environ(func.value)) or func.attr == "getenv"):
                yield node.lineno, node.args[0]
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
            yield node.lineno, node.slice
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and any(_is_environ(c) for c in node.comparators):
            yield node.lineno, node.left


def _offences(source: str, name: str) -> list[str]:
    """A read of a CLAWMARK_ variable, or of a variable whose name is not written out (which could be one)."""
    found = []
    for line, key in _read_keys(ast.parse(source)):
        literal = isinstance(key, ast.Constant) and isinstance(key.value, str)
        if not literal or key.value.upper().startswith(PREFIX):
            found.append(f"{name}:{line}: {ast.unparse(key)}")
    return found


def test_no_clawmark_variable_is_read_outside_the_settings_class():
    offences = [offence for folder in SCANNED for path in sorted((PROJECT_ROOT / folder).rglob("*.py"))
                if path != SETTINGS_FILE
                for offence in _offences(path.read_text(encoding="utf-8"), str(path.relative_to(PROJECT_ROOT)))]
    assert offences == [], "read these through clawmark.settings.settings() (a field of Settings):\n" + "\n".join(offences)


@pytest.mark.parametrize("source", [
    'import os\nx = os.environ.get("CLAWMARK_X", "1")',
    'import os\nx = os.getenv("CLAWMARK_X")',
    'import os\nx = os.environ["CLAWMARK_X"]',
    'import os\nx = "CLAWMARK_X" in os.environ',
    'import os\nNAME = "CLAWMARK_X"\nx = os.environ.get(NAME)',
    'from os import environ as env\nx = env.get("clawmark_x")',
])
def test_the_scan_catches_each_way_of_reading_a_variable(source):
    assert len(_offences(source, "probe.py")) == 1


def test_the_scan_lets_other_variables_and_writes_through():
    source = ('import os\nos.environ["CLAWMARK_NO_PULL"] = "1"\nhost = os.environ.get("DOCKER_HOST", "")\n'
              'env = dict(os.environ, CLAWMARK_RESULTS="/w")\nok = "PREFECT_API_URL" in os.environ\n'
              'def pick(environ, name):\n    return environ.get(name)')
    assert _offences(source, "probe.py") == []


def test_the_readme_table_is_the_settings_class():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert settings_table() in readme, "README's settings table differs from the class; paste in:\n" + settings_table()
    listed = {line.split("`")[1] for line in settings_table().splitlines() if line.startswith("| `")}
    assert listed == {env_name(field) for field in Settings.model_fields} and len(listed) == len(Settings.model_fields)


def test_defaults_and_paths_under_home(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.upper().startswith(PREFIX)]:
        monkeypatch.delenv(name)
    conf = settings()
    assert (conf.home, conf.results_dir, conf.prefect_home) == (
        PROJECT_ROOT / ".clawmark", PROJECT_ROOT / ".clawmark" / "results", PROJECT_ROOT / ".clawmark" / "prefect")
    assert (conf.stage_retries, conf.stage_backoff_s, conf.engine_wait_s, conf.gateway_port) == (2, 10.0, 900.0, 0)
    assert conf.host_firewall and conf.gateway_passthrough and not conf.no_pull and conf.cassettes == []
    assert "pypi.org" in conf.registry_hosts and conf.gateway_timeout_s is None and conf.failpoint is None
    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path))
    assert (settings().results_dir, settings().prefect_home) == (tmp_path / "results", tmp_path / "prefect")


def test_read_at_call_time_and_cached_only_per_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAWMARK_STAGE_RETRIES", "5")
    first = settings()
    assert first.stage_retries == 5 and settings() is first
    monkeypatch.setenv("CLAWMARK_STAGE_RETRIES", "0")
    assert settings().stage_retries == 0
    monkeypatch.delenv("CLAWMARK_STAGE_RETRIES")
    assert settings().stage_retries == 2  # gone from the environment: the default again
    monkeypatch.setenv("CLAWMARK_CASSETTES", f"{tmp_path}/a:~/b")
    assert settings().cassettes == [tmp_path / "a", Path("~/b").expanduser()]


@pytest.mark.parametrize("field, value, expected", [
    ("host_firewall", "OFF", False), ("host_firewall", "no", False), ("host_firewall", "yes", True),
    ("no_pull", "1", True), ("no_pull", "yes", True), ("no_pull", "0", False), ("no_pull", "false", False),
    ("gateway_passthrough", "0", False), ("gateway_passthrough", "false", True),
    ("images_dir", "", PROJECT_ROOT / "images"),  # empty counts as unset
    ("registry_hosts", "a.example,b.example", frozenset({"a.example", "b.example"})),
])
def test_switches_keep_the_spellings_they_always_took(monkeypatch, field, value, expected):
    monkeypatch.setenv(env_name(field), value)
    assert getattr(settings(), field) == expected


def test_a_bad_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("CLAWMARK_DISK_WAIT_S", "soon")
    with pytest.raises(SettingsError, match=r"CLAWMARK_DISK_WAIT_S='soon': .*number"):
        settings()
