"""`clawmark swe ...`: the grade command (no Docker) and the evaluate command (Docker)."""

from __future__ import annotations

import typer

from clawmark.cli import swe_evaluate, swe_grade

app = typer.Typer(no_args_is_help=True)
app.command("grade")(swe_grade.grade)
app.command("evaluate")(swe_evaluate.evaluate)
