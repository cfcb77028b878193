"""Published result tables as ordinary clawmark rows: UniClawBench's per-task results (and runs)
and Claw-SWE-Bench's leaderboard. Every imported row carries `imported_from` (source, commit, file
hash) and only what its source publishes; what it does not publish stays NaN / null."""

from clawmark.results.imports.csb import import_csb_leaderboard
from clawmark.results.imports.published import ImportInvalid, ImportSummary
from clawmark.results.imports.ucb import import_ucb_results

__all__ = ["ImportInvalid", "ImportSummary", "import_csb_leaderboard", "import_ucb_results"]
