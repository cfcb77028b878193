"""Rerun failed cells from the Prefect UI, as an operator does after an outage: a real
`clawmark server start` serves the UI (it ships in the wheel, offline), Chromium opens the
rerun-failed deployment, starts a custom run with the night's dated sweep id through the form,
a process worker on the `clawmark` pool runs it, and the results table has the new row."""

from __future__ import annotations

import re
import sys
import time

import pytest
import yaml
from playwright.sync_api import expect

from clawmark.results import AttemptRow, ResultStore
from clawmark.settings import TASKS_CATALOG
from tests.support.prefect_server import api, client_env, deploy_all, run, running_server, wait_flow_run, worker

pytestmark = [pytest.mark.browser, pytest.mark.docker, pytest.mark.slow]
NIGHT = "ui-20261201"  # a dated id, as nightly stores its nights; no spec file names it
UI_WAIT_MS = 120_000
FORM_PATH = re.compile(r"/deployment/[0-9a-f-]{36}/run\b")


def _plant_outage(store: ResultStore, sweep_id: str, claw: str) -> AttemptRow:
    """The row an engine outage leaves: infra_error (rerunnable), in place of the cell's real row."""
    frame = store.read(sweep_id)
    [cell_key] = frame.loc[frame["claw"] == claw, "cell_key"]
    real = AttemptRow.model_validate_json(store.layout(sweep_id, cell_key).row_json.read_text())
    outage = AttemptRow.model_validate({
        **real.model_dump(), "attempt_id": "planted-outage", "status": "infra_error", "error_kind": None,
        "passed": None, "resolved": None, "resolution": None, "failure_reason": "engine_error",
        "error_message": "Docker engine lost mid-attempt"})
    store.write(outage)
    return outage


def _parameter(page, name: str):
    """One parameter of Prefect's schema form, by its label."""
    label = page.locator(".schema-form-property__label", has_text=re.compile(rf"^{re.escape(name)}\b"))
    return page.locator(".schema-form-property").filter(has=label).last


def _fill(page, name: str, value: str | list[str]) -> None:
    """Optional fields start as None: switch them to `str` or `list` first; a list gets an item each."""
    section = _parameter(page, name)
    kind = "list" if isinstance(value, list) else "str"
    choose = section.get_by_role("button", name=kind, exact=True)
    if choose.count():
        choose.click()
    if isinstance(value, str):
        section.locator("textarea, input[type=text]").first.fill(value)
        return
    for index, item in enumerate(value):
        section.get_by_role("button", name="Add item").click()
        section.locator("textarea").nth(index).fill(item)


def _submit(page, ui_url: str, run_name: str, tries: int = 3) -> None:
    """Submit the custom-run form and wait until the UI leaves it for the deployment's page.

    On SQLite, Prefect's server answers 503 to a write that lost a race with its own services
    (the worker polls every 2 s); Prefect's client asks again, its UI shows an error toast
    instead. An operator who sees that toast submits again, and so does this, but only once the
    toast is up (the request is over) and the server holds no run of that name: never two runs."""
    failed: list[str] = []

    def note(response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.request.method} {response.url}")

    errors = page.locator(".p-toast__card", has=page.locator(".p-toast__icon--error"))
    page.on("response", note)
    try:
        for _ in range(tries):
            for close in page.locator(".p-toast__close-btn").all():
                close.dispatch_event("click")  # its countdown ring sits over the button
            expect(errors).to_have_count(0, timeout=UI_WAIT_MS)
            page.get_by_role("button", name="Submit", exact=True).click(timeout=UI_WAIT_MS)
            deadline = time.monotonic() + UI_WAIT_MS / 1000
            while time.monotonic() < deadline and FORM_PATH.search(page.url) and not errors.count():
                page.wait_for_timeout(250)
            if not FORM_PATH.search(page.url):
                return
            seen = errors.all_inner_texts()
            named = api(ui_url, "POST", "/flow_runs/filter", {"flow_runs": {"name": {"any_": [run_name]}}})
            if named or not seen:
                break
    finally:
        page.remove_listener("response", note)
    raise AssertionError(f"the custom run {run_name!r} never left the form ({len(named)} runs of that name);"
                         f" error toasts: {seen}; responses >= 400: {failed}")


def _start_custom_run(page, ui_url: str, run_name: str, values: dict[str, str | list[str]]) -> str:
    page.goto(f"{ui_url}/deployments", timeout=UI_WAIT_MS)
    page.get_by_role("link", name="rerun-failed", exact=True).first.click(timeout=UI_WAIT_MS)
    page.get_by_role("button", name="Run", exact=True).click(timeout=UI_WAIT_MS)
    page.get_by_text("Custom run", exact=True).click(timeout=UI_WAIT_MS)
    _parameter(page, "sweep_id").wait_for(timeout=UI_WAIT_MS)
    run_name_field = page.locator(".p-label").filter(has=page.get_by_text("Run Name", exact=True)).locator("input")
    run_name_field.first.fill(run_name)
    for name, value in values.items():
        _fill(page, name, value)
    _submit(page, ui_url, run_name)
    page.get_by_role("link", name=run_name, exact=True).first.click(timeout=UI_WAIT_MS)  # the deployment's runs
    page.wait_for_url(re.compile(r"/flow-run/[0-9a-f-]{36}"), timeout=UI_WAIT_MS)
    return re.search(r"/flow-run/([0-9a-f-]{36})", page.url).group(1)


def test_rerun_failed_cells_from_the_prefect_ui(docker_client, page, artifacts_dir, tmp_path):
    spec_file, results = tmp_path / "ui.yaml", tmp_path / "results"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": "ui", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "max_parallel": 2}))
    store = ResultStore(results)
    with running_server(tmp_path / "prefect-home") as ui_url:
        env = client_env(ui_url, tmp_path / "client-home", PREFECT_WORKER_QUERY_SECONDS="2")
        deploy_all(env)
        run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec_file), "--results", str(results),
             "--fork", NIGHT], env)
        kept = store.read(NIGHT).set_index("claw")["attempt_id"]["oracle"]
        outage = _plant_outage(store, NIGHT, "nop")
        with worker(env, log=tmp_path / "worker.log"):
            common = {"sweep_id": NIGHT, "spec_file": str(spec_file), "results_dir": str(results)}
            flow_run_id = _start_custom_run(page, ui_url, "rerun-after-outage", common)
            final = wait_flow_run(ui_url, flow_run_id)
            after_outage = store.read(NIGHT).set_index("claw")["attempt_id"]["nop"]
            named = _start_custom_run(page, ui_url, "rerun-named-status", {**common, "statuses": ["empty_patch"]})
            final_named = wait_flow_run(ui_url, named)
        page.reload()
        page.get_by_text("Completed").first.wait_for(timeout=UI_WAIT_MS)
        page.screenshot(path=str(artifacts_dir / "prefect-ui-rerun-failed.png"), full_page=True)
    assert final["state_type"] == "COMPLETED", (tmp_path / "worker.log").read_text()[-4000:]
    assert final["parameters"]["sweep_id"] == NIGHT and final["parameters"].get("statuses") is None

    rows = store.read(NIGHT).set_index("claw")
    assert rows.loc["nop", "status"] == "empty_patch"  # the outage's cell ran again, for real
    assert after_outage != outage.attempt_id
    assert rows.loc["oracle", "attempt_id"] == kept  # a measured row is never rerun by default ...
    assert final_named["state_type"] == "COMPLETED" and final_named["parameters"]["statuses"] == ["empty_patch"]
    assert rows.loc["nop", "attempt_id"] not in (outage.attempt_id, after_outage)  # ... only when named
    assert len(rows) == 2
