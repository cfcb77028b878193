"""`clawmark audit` on a real sweep (scripted model, real claws and containers): clean with fake
provider keys and a `.privacy` value planted in the gateway's environment; the attempts' bearer
tokens and the keys in no file; a fake key planted in a log, another planted base64-encoded in a
Basic auth header, and rubric text planted in a follow-up are all caught (exit 1), the keys shown
masked only."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawmark.audit import Secret, audit_sweep
from clawmark.cli.main import app
from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SWEEP = "audit-sweep"
TASK = "zh_201_invoice_sum"
INSTANCE = "clawmark-fixtures__iniparse-py-1"
PLANTED = {"OPENAI_API_KEY": "sk-h6fake-0c1d2e3f4a5b6c7d8e9f", "ANTHROPIC_API_KEY": "sk-ant-h6fake-99aa88bb77cc",
           "H6_AUDIT_PRIVATE": "privacy-value-5e6f7a8b9c"}


@pytest.fixture(scope="module")
def swept(docker_client, prefect_server, tmp_path_factory):
    """(results folder, bearer tokens issued) of one sweep: a two-turn closed-loop task whose
    package has a `.privacy` variable, and a patch instance, both with the reference claw."""
    from clawmark.gateway.routes import RouteTable
    from flows.sweep import sweep

    root = tmp_path_factory.mktemp("audit")
    tasks = root / "tasks"
    shutil.copytree(TASKS_CATALOG / "closed_loop" / TASK, tasks / TASK)
    (tasks / TASK / ".privacy").write_text("H6_AUDIT_PRIVATE\n")
    cassettes = root / "cassettes"  # one model name for both tracks: cl-<task id>
    cassettes.mkdir()
    shutil.copy(TASKS_CATALOG / "cassettes" / f"ref-{INSTANCE}.yaml", cassettes / f"cl-{INSTANCE}.yaml")
    tokens: list[str] = []
    register = RouteTable.register

    def recording(self, *args, **kwargs):
        route = register(self, *args, **kwargs)
        tokens.append(route.token)
        return route

    spec = {"sweep_id": SWEEP, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"), "tasks": [INSTANCE],
            "claws": ["reference"], "models": ["scripted/cl-{task_id}"], "max_parallel": 2,
            "closed_loop": {"tasks": [TASK], "tasks_dir": str(tasks)}}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in PLANTED.items():
            patch.setenv(name, value)
        patch.setenv("CLAWMARK_CASSETTES", str(cassettes))
        patch.setattr(RouteTable, "register", recording)
        result = sweep(spec=spec, results_dir=str(root / "results"))
    assert result["ran"] == 2
    return root / "results", tasks, [t for t in tokens if t]


def run_audit(results: Path, tasks: Path):
    env = {**PLANTED}
    return CliRunner().invoke(app, ["audit", SWEEP, "--results", str(results), "--tasks-dir", str(tasks)], env=env)


def every_file(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_a_clean_sweep_audits_clean(swept):
    results, tasks, _ = swept
    rows = ResultStore(results).read(SWEEP).set_index("track")
    assert set(rows["status"]) <= {"pass", "resolved"}, rows[["status", "error_message"]]
    outcome = run_audit(results, tasks)
    assert outcome.exit_code == 0, outcome.output
    assert f"audit {SWEEP}: clean" in outcome.output and "2 cells checked for hidden material" in outcome.output


def test_no_file_holds_a_bearer_token_or_a_provider_key(swept):
    results, tasks, tokens = swept
    assert len(tokens) >= 2  # one per attempt, at least
    needles = [t.encode() for t in tokens] + [v.encode() for v in PLANTED.values()]
    holding = [str(p) for p in every_file(results) if any(n in p.read_bytes() for n in needles)]
    assert holding == []
    report = audit_sweep(ResultStore(results), SWEEP, PLANTED, tasks_dir=tasks,
                         extra_secrets=[Secret(f"gateway token {i}", t) for i, t in enumerate(tokens)])
    assert report.findings == [] and report.files > 10 and report.rows == 2


def basic_auth(key: str) -> str:
    """`user:key` base64-encoded: the key starts 5 bytes in, so its characters are not aligned."""
    return base64.b64encode(f"claw:{key}".encode()).decode()


def plant_leaks(results: Path, tasks: Path) -> set[str]:
    """A fake key in the patch cell's log, another base64-encoded in the closed-loop cell's shell
    log, a rubric checkpoint in the closed-loop follow-up; the three files' paths from the store's
    root."""
    store = ResultStore(results)
    rows = store.read(SWEEP).set_index("track")
    closed = store.layout(SWEEP, rows.loc["closed_loop", "cell_key"]).dir
    patch = store.layout(SWEEP, rows.loc["patch", "cell_key"]).dir
    rubric_line = next(line for line in (tasks / TASK / "references" / "eval_rule.md").read_text().splitlines()
                       if line.startswith("- **CP3"))  # a checkpoint: what no deliverable says
    log = patch / "logs" / "agent.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"debug: Authorization: Bearer {PLANTED['OPENAI_API_KEY']}\n")
    shell = closed / "logs" / "shell.log"
    shell.parent.mkdir(parents=True, exist_ok=True)
    shell.write_text(f"$ curl -H 'Authorization: Basic {basic_auth(PLANTED['ANTHROPIC_API_KEY'])}' https://x.test\n")
    [feedback] = sorted(closed.glob("cycles/0/feedback.txt"))
    feedback.write_text(feedback.read_text() + "\n" + rubric_line + "\n")
    return {path.relative_to(results).as_posix() for path in (log, shell, feedback)}


def flagged_files(output: str) -> set[str]:
    leaks = [line for line in output.splitlines() if line.startswith("LEAK ")]
    assert any("logs/agent.log" in line and "secret OPENAI_API_KEY" in line for line in leaks), leaks
    assert any("cycles/0/feedback.txt" in line and "rubric:" in line for line in leaks), leaks
    assert any("logs/shell.log" in line and line.endswith("secret ANTHROPIC_API_KEY sk-a… (26 chars), base64-encoded")
               for line in leaks), leaks
    assert PLANTED["OPENAI_API_KEY"] not in output and PLANTED["ANTHROPIC_API_KEY"] not in output
    assert basic_auth(PLANTED["ANTHROPIC_API_KEY"])[8:] not in output
    return {line.removeprefix("LEAK ").split(":", 1)[0] for line in leaks}


def test_a_key_in_a_log_a_base64_key_and_rubric_text_in_a_follow_up_are_caught(swept, tmp_path):
    results, tasks, _ = swept
    copy = tmp_path / "results"
    shutil.copytree(results, copy, symlinks=True)
    planted = plant_leaks(copy, tasks)
    outcome = run_audit(copy, tasks)
    assert outcome.exit_code == 1, outcome.output
    assert flagged_files(outcome.output) == planted  # nothing else


def test_the_same_sweep_in_an_s3_store_audits_alike(swept, tmp_path):
    """The sweep's folder copied into a bucket (the layout a remote sweep writes): the audit reads
    it through the store's filesystem, with nothing staged locally, and flags the same files."""
    import pyarrow.fs as pafs

    from tests.support.s3_server import CREDENTIALS, s3_server

    results, tasks, _ = swept
    copy = tmp_path / "results"
    shutil.copytree(results, copy, symlinks=True)
    planted = plant_leaks(copy, tasks)
    with s3_server(tmp_path) as (url, s3):
        pafs.copy_files(str(copy), "clawmark/results", source_filesystem=pafs.LocalFileSystem(),
                        destination_filesystem=s3)
        args = ["audit", SWEEP, "--results", url, "--tasks-dir", str(tasks)]
        outcome = CliRunner().invoke(app, args, env={**PLANTED, **CREDENTIALS})
    assert outcome.exit_code == 1, outcome.output
    assert flagged_files(outcome.output) == planted
    local = run_audit(copy, tasks)
    assert local.output.splitlines()[-1] == outcome.output.splitlines()[-1]  # same files, rows, cells counted
