"""One attempt of the closed-loop track: one task × one claw × one model × one seed → one row.

load task ─► TaskEnv (provision, inject sources/skills/services, pre_exec) ─► register the attempt
at the gateway (executor, supervisor, user_simulator: a model, token and cost cap each; one ledger)
─► claw.create_agent ─► cycles: executor turn ─► results snapshot ─► checks ─► supervisor ─►
stop order ─► firewall ─► simulator ─► rewriter ─► leak audit ─► next turn ─► outcome ─► row
(committed last) ─► delete_agent and teardown always. Every cycle leaves `cycles/<n>/` (see results/layout.py).

Budgets: each executor turn gets the task's ``timeout_seconds``; all executor turns together get
``max_total_seconds`` (supervisor, simulator, checks and set-up are not counted).

Each step is a stage over the attempt's state (clawmark/attempts/closed_loop_stages.py,
closed_loop_cycle.py, closed_loop_finish.py); this function runs them directly, the sweep flow
runs each as a Prefect task (flows/attempt.py).
"""

from __future__ import annotations

from clawmark.attempts.base import claw_identity
from clawmark.attempts.closed_loop_config import ClosedLoopAttemptConfig
from clawmark.attempts.closed_loop_prompt import preamble_digest
from clawmark.attempts.closed_loop_stages import CLOSED_LOOP_STAGES, ClosedLoopAttempt
from clawmark.attempts.gateway_link import priced_by_fallback
from clawmark.attempts.model_family import model_for_task
from clawmark.attempts.phases import open_cell
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.attempts.stages import run_stages
from clawmark.catalog.task import ClosedLoopTask
from clawmark.claws import ClawAdapter
from clawmark.claws.profiles import claw_for
from clawmark.gateway.cassettes import is_scripted
from clawmark.results import AttemptRow, Track, config_hash
from clawmark.runtime.images import image_ref
from clawmark.taskenv.config import WORKSTATION_RECIPE, base_skills_for, runtime_profile
from clawmark.taskenv.headed import task_image_ref
from clawmark.taskenv.inject import skills_identity
from clawmark.webproxy.proxied_task import web_identity, web_task_hash

# Re-exported: the closed-loop track's config is imported from here.
__all__ = ["ClosedLoopAttemptConfig", "identity_fields", "open_closed_loop_attempt", "role_models",
           "run_closed_loop_attempt"]

SCRIPTED_ROLE_FAMILIES = {"supervisor": "scripted/sup-{task_id}", "user_simulator": "scripted/sim-{task_id}"}


def role_models(task: ClosedLoopTask, model: str, config: ClosedLoopAttemptConfig) -> dict[str, str]:
    """Model of every role, with `{task_id}` families resolved (the gateway pins these)."""
    codex = task.spec.codex
    picked = {
        "supervisor": config.supervisor_model or (codex.supervisor.model if codex.supervisor else None),
        "user_simulator": config.simulator_model or (codex.user_simulator.model if codex.user_simulator else None),
    }
    for role, family in SCRIPTED_ROLE_FAMILIES.items():
        if not picked[role]:
            picked[role] = family if is_scripted(model) else model
    resolved = {"executor": model, **picked}
    return {role: model_for_task(m, task.task_id) for role, m in resolved.items()}  # type: ignore[arg-type]


def run_closed_loop_attempt(
    task: ClosedLoopTask,
    claw_name: str,
    model: str,
    seed: int,
    store: AttemptStore,
    sweep_id: str,
    gateway: AttemptGateway | None,
    *,
    config: ClosedLoopAttemptConfig | None = None,
) -> AttemptRow:
    """Run one cell and commit its row; infra failures become error rows, never exceptions."""
    attempt = open_closed_loop_attempt(task, claw_name, model, seed, store, sweep_id, gateway, config=config)
    return run_stages(attempt, CLOSED_LOOP_STAGES)


def open_closed_loop_attempt(task: ClosedLoopTask, claw_name: str, model: str, seed: int, store: AttemptStore,
                             sweep_id: str, gateway: AttemptGateway | None, *,
                             config: ClosedLoopAttemptConfig | None = None) -> ClosedLoopAttempt:
    """The state of a fresh attempt of the cell (clawmark/attempts/closed_loop_stages.py), its
    folder laid out and its config saved; the stages in CLOSED_LOOP_STAGES run it to its row."""
    claw, config = claw_for(claw_name, config or ClosedLoopAttemptConfig())
    models = role_models(task, model, config)
    fields = identity_fields(task, claw, model, seed, sweep_id, config, models)
    layout, attempt_id, saved_hash = open_cell(store, sweep_id, fields, _saved_config(task, claw, models, seed, config))
    return ClosedLoopAttempt(task, claw, models, attempt_id, layout, gateway, config, store=store, fields=fields,
                             saved_hash=saved_hash, model=model,
                             price_fallback=priced_by_fallback(models.values(), config.fallback_price))


def identity_fields(task: ClosedLoopTask, claw: ClawAdapter, model: str, seed: int, sweep_id: str,
                    config: ClosedLoopAttemptConfig, models: dict[str, str]) -> dict[str, object]:
    judges = {"roles": {k: v for k, v in models.items() if k != "executor"}, "snapshot": config.snapshot,
              "task_image": task_image_ref(task, config.image) or _workstation_ref(),
              "network_policy": config.network_policy,
              "base_skills": skills_identity(base_skills_for(task, config.base_skills)),
              "image_model": config.image_model, "turn_timeout_s": config.turn_timeout_s,
              "total_timeout_s": config.total_timeout_s, "preamble": preamble_digest(task, claw, config),
              **web_identity(config.web), **_profile_identity(task, config),  # absent = no proxy: old keys hold
              **({} if config.judge == "prompt" else {"judge": config.judge})}  # prompt cells keep their keys
    return {
        **claw_identity(claw, model, seed, sweep_id, config),
        "track": Track.CLOSED_LOOP,
        "task_id": task.task_id,
        "task_hash": web_task_hash(task, config.web),  # folds in the web archive when replaying
        "category": task.spec.category,
        "capability": task.capability,
        "language": task.language,
        "model_params_hash": config_hash({**config.model_params, "closed_loop": judges}),
    }


def _workstation_ref() -> str:
    """The task image's content-hash tag: an edited workstation recipe re-keys closed-loop cells."""
    try:
        return image_ref(WORKSTATION_RECIPE)
    except Exception as exc:  # noqa: BLE001 - a missing recipe shows at provision, as a typed row
        return f"unbuildable: {type(exc).__name__}"


def _saved_config(task: ClosedLoopTask, claw: ClawAdapter, models: dict[str, str], seed: int,
                  config: ClosedLoopAttemptConfig) -> dict[str, object]:
    return {"task_id": task.task_id, "task_file": str(task.task_file), "claw": claw.settings(),
            "models": models, "seed": seed, "protocol": config.protocol_dump(),
            "task_warnings": list(getattr(task, "warnings", []))}  # what the catalog could not extract


def _profile_identity(task: ClosedLoopTask, config: ClosedLoopAttemptConfig) -> dict[str, str]:
    """The executor's runtime profile in the cell key; absent for the unprivileged user, so the
    keys of cells run before profiles existed (all of them user-least) hold."""
    profile = runtime_profile(task, config.executor)
    return {} if profile == "user-least" else {"runtime_profile": profile}
