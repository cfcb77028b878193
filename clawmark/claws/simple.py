"""The two calibration claws: ``oracle`` (must resolve every instance) and ``nop`` (must resolve
none). Any instance where they disagree with that is a broken instance, not a claw result."""

from __future__ import annotations

from clawmark.claws.base import ClawAdapter, ClawContext, Stopwatch, TurnResult
from clawmark.claws.diff_apply import apply_diff_turn


class NopClaw(ClawAdapter):
    """Does nothing: the empty patch, graded as not resolved."""

    name = "nop"
    tracks = ("patch",)  # patch track only: it has no way to act on a closed-loop task
    calls_model = False

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        return TurnResult(success=True, finish_reason="empty", exit_status="nothing_done")


class OracleClaw(ClawAdapter):
    """Applies the instance's gold patch. It is the ONLY claw given hidden material: the attempt
    runner sets ``ctx.gold_patch`` only because ``needs_gold_patch`` is True here."""

    name = "oracle"
    tracks = ("patch",)  # patch track only: it has no way to act on a closed-loop task
    needs_gold_patch = True
    calls_model = False

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        if not ctx.gold_patch:
            return TurnResult(success=False, finish_reason="error", error="no gold patch given")
        return apply_diff_turn(ctx, ctx.gold_patch, name="oracle", clock=clock)
