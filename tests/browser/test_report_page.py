"""The HTML report opened in a real browser: it renders, every plot is present and drawn, no
console error, and a screenshot is kept as a test artifact."""

from __future__ import annotations

from analysis.report import build_report
from tests.support.report_rows import mixed_rows

PLOTS = ("leaderboard", "pareto", "tokens", "heatmap", "followup", "roles")


def test_report_renders_with_every_plot(page, tmp_path, artifacts_dir):
    index = build_report(mixed_rows(), tmp_path / "report", n_boot=200)
    page.goto(index.as_uri())
    assert page.title() == "clawmark report"
    for name in PLOTS:
        figure = page.locator(f'figure[data-plot="{name}"] svg')
        assert figure.count() == 1, name
        box = figure.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100, (name, box)
        assert figure.locator("path").count() > 5, name  # drawn, not an empty frame
    assert page.locator("#leaderboard table tbody tr").count() == 3
    page.screenshot(path=str(artifacts_dir / "report.png"), full_page=True)
    assert (artifacts_dir / "report.png").stat().st_size > 10_000
    assert page.problems == []
