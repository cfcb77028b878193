"""`clawmark run` bad inputs: one clear line naming what was expected, exit 1, no traceback
(all of these fail before any container or gateway starts)."""

from __future__ import annotations

from typer.testing import CliRunner

from clawmark.cli.main import app

RUNNER = CliRunner()


def _run(*args: str):
    result = RUNNER.invoke(app, ["run", *args])
    return result.exit_code, result.output


def test_closed_loop_task_with_a_bad_option_is_one_line():
    code, out = _run("en_101_sales_total", "--claw", "nop", "--model", "none", "--network", "wide-open")
    assert code == 1 and "--network: expected" in out and "'wide-open'" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1


def test_unknown_task_id_names_the_instance_file():
    code, out = _run("no-such-task", "--claw", "nop", "--model", "none")
    assert code == 1 and "instances.jsonl: instance_id: expected one of" in out and "'no-such-task'" in out


def test_unknown_claw_lists_the_known_ones():
    from clawmark.claws import claw_names

    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "no-such-claw", "--model", "none")
    assert code == 1 and f"--claw: expected one of {', '.join(claw_names())} (got 'no-such-claw')" in out
    assert {"openclaw", "nanobot", "hermes", "edict", "genericagent", "zeroclaw"} <= set(claw_names())


def test_bad_instances_file_is_one_line(tmp_path):
    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"instance_id": "x"}\n')
    code, out = _run("x", "--claw", "nop", "--model", "none", "--instances", str(bad))
    assert code == 1 and str(bad) in out and len(out.strip().splitlines()) == 1


def test_unsafe_sweep_id_is_refused():
    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "nop", "--model", "none", "--sweep-id", "../x")
    assert code == 1 and "--sweep-id" in out


def test_engine_down_is_a_setup_error_not_a_row(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:1")  # nothing listens on port 1
    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "nop", "--model", "none",
                     "--results", str(tmp_path / "results"))
    assert code == 1 and "Docker engine not reachable" in out
    assert not (tmp_path / "results").exists()


def test_a_profile_without_its_checkout_or_claw_is_refused_before_anything_runs():
    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "openclaw", "--model", "none",
                     "--profile", "csb-paper")
    assert code == 1 and "profiles.csb_paper.checkout" in out and "--checkout PATH" in out and "Traceback" not in out
    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "hermes", "--model", "none", "--profile", "ucb-paper")
    assert code == 1 and "does not run claw 'hermes'" in out
    code, out = _run("clawmark-fixtures__iniparse-py-1", "--claw", "nop", "--model", "none", "--profile", "ucb")
    assert code == 1 and "unknown protocol profile 'ucb'" in out
