"""`clawmark report` and `clawmark audit` on a result store given by URL, against an S3 server
double (moto's server on loopback): the report reads its rows and pinned config from the bucket
and is written to a local folder; the audit reads every artifact, log and row through the store's
filesystem and catches a key planted in a log and rubric text planted in a follow-up."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.results import from_record
from clawmark.results.location import open_store
from clawmark.results.synthetic import example_row
from clawmark.settings import TASKS_CATALOG
from tests.support.report_rows import SWEEP, mixed_rows
from tests.support.s3_server import CREDENTIALS, s3_server

TASK = "zh_201_invoice_sum"
KEY = {"OPENAI_API_KEY": "sk-remote-fake-7a6b5c4d3e2f1a0b"}


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """(store URL, S3 filesystem) with the credentials in the environment for the whole module."""
    with pytest.MonkeyPatch.context() as patch, s3_server(tmp_path_factory.mktemp("moto")) as (url, fs):
        for name, value in CREDENTIALS.items():
            patch.setenv(name, value)
        yield url, fs


def _bucket_files(fs, prefix: str) -> list[str]:
    import pyarrow.fs as pafs

    selector = pafs.FileSelector(prefix, recursive=True, allow_not_found=True)
    return [i.path for i in fs.get_file_info(selector) if i.type == pafs.FileType.File]


def test_report_reads_a_remote_store_and_writes_a_local_folder(s3, tmp_path, monkeypatch):
    url, fs = s3
    store = open_store(url, staging=tmp_path / "staging")
    for record in mixed_rows().to_dict("records"):
        store.write(from_record(record))
    store.pin_config(SWEEP, {"protocol_version": "remote-pin-7"})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["report", SWEEP, "--results", url, "--n-boot", "100"])
    assert result.exit_code == 0, result.output
    index = tmp_path / "reports" / SWEEP / "index.html"
    assert f"report: {index.relative_to(tmp_path)}" in result.output.replace("\n", "")
    page = index.read_text(encoding="utf-8")
    assert "remote-pin-7" in page and 'data-plot="pareto"' in page  # the pinned config came from the bucket
    assert _bucket_files(fs, f"{store.root}/reports") == []  # nothing written remotely
    chosen = CliRunner().invoke(app, ["report", SWEEP, "--results", url, "--out", str(tmp_path / "mine"),
                                      "--n-boot", "100"])
    assert chosen.exit_code == 0 and (tmp_path / "mine" / "index.html").is_file(), chosen.output
    missing = CliRunner().invoke(app, ["report", "nope", "--results", url])
    assert missing.exit_code == 1 and "no rows" in missing.output and url in missing.output.replace("\n", "")


def test_a_store_url_no_filesystem_serves_is_refused_by_each_command():
    for args in (["report", "x"], ["audit", "x"], ["run", "t", "--claw", "oracle", "--model", "none"]):
        result = CliRunner().invoke(app, [*args, "--results", "nosuchscheme://bucket/results"])
        assert result.exit_code == 2 and "--results" in result.output, (args, result.output)


def _planted_sweep(url: str, staging):
    """One closed-loop cell of a bundled task whose artifacts are uploaded with its row: a log
    holding a provider key and a follow-up repeating a rubric checkpoint."""
    store = open_store(url, staging=staging)
    row = example_row(sweep_id="remote-audit", task_id=TASK, claw="reference", language="zh", status="fail",
                      score=0.4, turns=2, followups_used=1)
    cell = store.layout(row.sweep_id, row.cell_key).dir
    rubric_line = next(line for line in (TASKS_CATALOG / "closed_loop" / TASK / "references" / "eval_rule.md")
                       .read_text(encoding="utf-8").splitlines() if line.startswith("- **CP3"))
    for name, text in {"logs/agent.log": f"debug: Authorization: Bearer {KEY['OPENAI_API_KEY']}\n",
                       "cycles/0/feedback.txt": f"请再检查一下。\n{rubric_line}\n",
                       "artifacts/summary.md": "总额 1234.50\n"}.items():
        (cell / name).parent.mkdir(parents=True, exist_ok=True)
        (cell / name).write_text(text, encoding="utf-8")
    store.write(row)
    return store, row


def test_audit_finds_leaks_planted_in_a_remote_store(s3, tmp_path):
    url, fs = s3
    store, row = _planted_sweep(url, tmp_path / "worker-staging")
    cell = f"cells/remote-audit/{row.cell_key}"
    assert f"{store.root}/{cell}/logs/agent.log" in _bucket_files(fs, store.root)  # uploaded at commit
    elsewhere = open_store(url, staging=tmp_path / "auditor-staging")  # another machine: nothing staged there
    assert not (tmp_path / "auditor-staging").exists()
    result = CliRunner().invoke(app, ["audit", "remote-audit", "--results", url], env=KEY)
    assert result.exit_code == 1 and "finding(s); 5 files, 1 rows" in result.output, result.output  # row, row.json, 3 files
    leaks = [line for line in result.output.splitlines() if line.startswith("LEAK ")]
    flagged = {line.removeprefix("LEAK ").split(":", 1)[0] for line in leaks}
    assert flagged == {f"{cell}/logs/agent.log", f"{cell}/cycles/0/feedback.txt"}, leaks
    assert any("secret OPENAI_API_KEY" in line for line in leaks) and any("rubric:" in line for line in leaks)
    assert KEY["OPENAI_API_KEY"] not in result.output
    assert "1 cells checked for hidden material" in result.output
    assert elsewhere.completed_cells("remote-audit") == {row.cell_key}


def test_audit_of_a_clean_remote_sweep_passes_and_of_an_absent_one_is_bad_input(s3, tmp_path):
    url, _ = s3
    store = open_store(url, staging=tmp_path / "staging")
    row = example_row(sweep_id="remote-clean", task_id=TASK, claw="reference", language="zh")
    cell = store.layout(row.sweep_id, row.cell_key).dir
    (cell / "logs").mkdir(parents=True)
    (cell / "logs" / "agent.log").write_text("all calls answered\n")
    store.write(row)
    clean = CliRunner().invoke(app, ["audit", "remote-clean", "--results", url], env=KEY)
    assert clean.exit_code == 0 and "audit remote-clean: clean" in clean.output, clean.output
    assert "1 cells checked for hidden material" in clean.output
    absent = CliRunner().invoke(app, ["audit", "never-ran", "--results", url])
    assert absent.exit_code == 2 and "sweep never-ran" in absent.output, absent.output
