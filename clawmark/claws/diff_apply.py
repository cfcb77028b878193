"""Write a unified diff into the workspace with `git apply`: the whole turn of the claws whose
only action is one diff (oracle: the gold patch; bare: the model's reply)."""

from __future__ import annotations

import shlex

from clawmark.claws.base import ClawContext, Stopwatch, TurnResult

APPLY_TIMEOUT_S = 120
ERROR_TAIL_CHARS = 2000


def apply_diff_turn(ctx: ClawContext, diff: str, *, name: str, clock: Stopwatch, **extra: object) -> TurnResult:
    """Apply `diff` in `ctx.workspace`; the temp file is gone afterwards, applied or not."""
    path = f"/tmp/clawmark-{name}.diff"
    ctx.sandbox.write_file(path, diff.encode())
    quoted = shlex.quote(path)
    result = ctx.sandbox.exec(f"git apply --verbose {quoted}; rc=$?; rm -f {quoted}; exit $rc",
                              timeout_s=APPLY_TIMEOUT_S, workdir=ctx.workspace)
    ok = result.exit_code == 0
    return TurnResult(
        success=ok,
        exit_code=result.exit_code,
        finish_reason="stop" if ok else "error",
        exit_status="applied" if ok else "apply_failed",
        duration_s=clock.elapsed(),
        error=None if ok else (result.stderr or result.stdout)[-ERROR_TAIL_CHARS:],
        **extra,
    )
