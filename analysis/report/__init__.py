"""The HTML report of a sweep: `build_report(frame, out_dir)` (tables, plots, page)."""

from analysis.report.build import build_report

__all__ = ["build_report"]
