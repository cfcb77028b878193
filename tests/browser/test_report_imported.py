"""The report of the imported UniClawBench table in a real browser: readable, the leaderboard fits
the page (no sideways scroll) with its cost column in view; a screenshot is kept as an artifact."""

from __future__ import annotations

from analysis.report import build_report
from tests.support.published_tables import imported_store


def test_imported_report_leaderboard_fits_the_page(page, tmp_path, artifacts_dir):
    store = imported_store(tmp_path / "store")
    index = build_report(store.read("ucb"), tmp_path / "report", title="clawmark · sweep ucb", n_boot=200)
    page.goto(index.as_uri())
    table = page.locator("#leaderboard table")
    assert table.locator("tbody tr").count() == 16
    widths = table.evaluate("t => [t.scrollWidth, t.parentElement.clientWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1] <= widths[2], widths  # no sideways scroll inside or outside the table
    cost = table.locator("th", has_text="cost / attempt $")
    box = cost.bounding_box()
    assert box is not None and box["x"] + box["width"] <= widths[2], box
    assert page.locator("#harness_model .note").inner_text().startswith("Harness choice moves pass@1 by")
    page.screenshot(path=str(artifacts_dir / "report-imported-ucb.png"), full_page=True)
    assert (artifacts_dir / "report-imported-ucb.png").stat().st_size > 10_000
    assert page.problems == []
