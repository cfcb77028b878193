"""How a closed-loop attempt ends, after its cycles (clawmark/attempts/closed_loop_cycle.py):
teardown (claw usage saved, agent deleted, recording stopped, container down, routes gone, the
package checked unchanged: always, each step logged and never raised) ─► record (the row,
committed last). The last two stages of CLOSED_LOOP_STAGES (clawmark/attempts/closed_loop_stages.py)."""

from __future__ import annotations

import json

from clawmark.attempts.closed_loop_config import role_caps
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.gateway_link import unregister
from clawmark.attempts.phases import run_cleanup
from clawmark.attempts.stages import SETUP_MARGIN_S, Stage
from clawmark.attempts.usage_check import CLAW_USAGE_FILE, row_cross_check
from clawmark.gateway.ledger import summarize_ledger
from clawmark.results import AttemptRow, ClosedLoopOutcome
from clawmark.taskenv.config import runtime_profile
from clawmark.taskenv.package_guard import PackageChanged
from clawmark.webproxy.proxied_task import row_web_counts


def teardown(s: ClosedLoopAttempt) -> None:
    """Claw usage saved, agent deleted, recording stopped, container down, routes gone: each
    once, each logged (never raised) when it fails."""
    if s.cleaned_up:
        return
    s.cleaned_up = True
    if s.agent_created:
        run_cleanup(s.layout, "collect_usage", lambda: _save_claw_usage(s))
    if s.registered:
        run_cleanup(s.layout, "delete_agent", lambda: s.claw.delete_agent(s.ctx))
    if s.container_up:
        run_cleanup(s.layout, "headed", lambda: s.headed.finish(s.ctx.sandbox))
        run_cleanup(s.layout, "teardown", s.stop_container)
    if s.registered:
        run_cleanup(s.layout, "unregister", lambda: _unregister(s))
    if s.env is not None:
        run_cleanup(s.layout, "package", lambda: _release_package(s))


def teardown_failed(s: ClosedLoopAttempt, exc: BaseException) -> None:
    raise exc  # never in the loop: clean-up runs after it, directly when its task fails


def record(s: ClosedLoopAttempt) -> AttemptRow:
    outcome = s.outcome or ClosedLoopOutcome.harness(RuntimeError("no stage set an outcome"), "attempt")
    if s.package_changed is not None:  # the cell key no longer names what ran: an error, rerunnable
        outcome = ClosedLoopOutcome.infra(s.package_changed, "package", threshold=s.threshold)
    if s.registered:  # the container was ready: the row names its image
        outcome = outcome.model_copy(update={"image_id": s.image_id})
    return s.commit(_row(s, outcome))


def _release_package(s: ClosedLoopAttempt) -> None:
    """The attempt's package copy pruned to the references it was judged against (package/ in its
    folder); the package itself checked unchanged, byte for byte."""
    try:
        s.env.release_package()
    except PackageChanged as exc:
        s.package_changed = exc


def _save_claw_usage(s: ClosedLoopAttempt) -> None:
    """The claw's own figures, a cross-check of the ledger (attempts/usage_check.py)."""
    usage = s.claw.collect_usage(s.ctx)
    if usage is not None:
        # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
        (s.layout.logs / CLAW_USAGE_FILE).write_text(json.dumps(usage.model_dump(), indent=2))


def _unregister(s: ClosedLoopAttempt) -> None:
    unregister(s.gateway, s.attempt_id)


def _row(s: ClosedLoopAttempt, outcome: ClosedLoopOutcome) -> AttemptRow:
    layout, config = s.layout, s.config
    summary = summarize_ledger(layout.ledger) if layout.ledger.is_file() else {}
    cross_check = row_cross_check(layout.logs, layout.ledger)  # never costs the row
    layout.usage.write_text(json.dumps(summary, indent=2, default=str))
    layout.outcome.write_text(outcome.model_dump_json(indent=2))
    return AttemptRow.from_usage(
        summary, caps=role_caps(config), **s.row_fields(), **outcome.row_fields(),
        network_policy=config.network_policy, snapshot_mode=config.snapshot,
        **row_web_counts(layout.artifacts / "web"), **cross_check,
        runtime_profile=runtime_profile(s.task, config.executor), judge_mode=config.judge,
        supervisor_model=s.models["supervisor"], **(s.env.setup_state if s.env is not None else {}),
    )


TEARDOWN = Stage("teardown", teardown, teardown_failed, bound_s=lambda s: 2 * SETUP_MARGIN_S)
RECORD = Stage("record", record, teardown_failed, bound_s=lambda s: SETUP_MARGIN_S)
