"""The two calibration claws: ``oracle`` (must resolve every instance) and ``nop`` (must resolve
none). Any instance where they disagree with that is a broken instance, not a claw result."""

from __future__ import annotations

import shlex

from clawmark.claws.base import ClawAdapter, ClawContext, Stopwatch, TurnResult

GOLD_PATCH_PATH = "/tmp/clawmark-oracle.diff"


class NopClaw(ClawAdapter):
    """Does nothing: the empty patch, graded as not resolved."""

    name = "nop"

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        return TurnResult(success=True, finish_reason="empty", exit_status="nothing_done")


class OracleClaw(ClawAdapter):
    """Applies the instance's gold patch. It is the ONLY claw given hidden material: the attempt
    runner sets ``ctx.gold_patch`` only because ``needs_gold_patch`` is True here."""

    name = "oracle"
    needs_gold_patch = True

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        if not ctx.gold_patch:
            return TurnResult(success=False, finish_reason="error", error="no gold patch given")
        ctx.sandbox.write_file(GOLD_PATCH_PATH, ctx.gold_patch.encode())
        cmd = f"git apply --verbose {shlex.quote(GOLD_PATCH_PATH)} && rm -f {GOLD_PATCH_PATH}"
        result = ctx.sandbox.exec(cmd, timeout_s=120, workdir=ctx.workspace)
        ok = result.exit_code == 0
        return TurnResult(
            success=ok,
            exit_code=result.exit_code,
            finish_reason="stop" if ok else "error",
            exit_status="applied" if ok else "apply_failed",
            duration_s=clock.elapsed(),
            error=None if ok else (result.stderr or result.stdout)[-2000:],
        )
