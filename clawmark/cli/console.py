"""The one Rich console of the CLI: the terminal's width, or a wide fixed one in logs and pipes.

Without a terminal (make, CI logs, `| cat`) Rich assumes 80 columns and folds ids into `closed_…`;
a log line can be long, a folded id cannot be searched for."""

from __future__ import annotations

import sys

from rich.console import Console

PIPE_WIDTH = 200


def console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else PIPE_WIDTH)
