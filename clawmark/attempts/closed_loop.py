"""One attempt of the closed-loop track: one task × one claw × one model × one seed → one row.

load task ─► TaskEnv (provision, inject sources/skills/services, pre_exec) ─► register the attempt
at the gateway (executor, supervisor, user_simulator: a model, token and cost cap each; one ledger)
─► claw.create_agent ─► cycles: executor turn ─► results snapshot ─► checks ─► supervisor ─►
stop order ─► firewall ─► simulator ─► rewriter ─► leak audit ─► next turn ─► outcome ─► row
(committed last) ─► delete_agent and teardown always. Every cycle leaves `cycles/<n>/` (see results/layout.py).

Budgets: each executor turn gets the task's ``timeout_seconds``; all executor turns together get
``max_total_seconds`` (supervisor, simulator, checks and set-up are not counted).

Each step is a stage over the attempt's state (clawmark/attempts/closed_loop_stages.py and
closed_loop_cycle.py); this function runs them directly, the sweep flow runs each as a Prefect
task (flows/attempt.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from clawmark.attempts.closed_loop_prompt import preamble_digest
from clawmark.attempts.closed_loop_stages import CLOSED_LOOP_STAGES, ClosedLoopAttempt
from clawmark.attempts.credentials import NoCredentials
from clawmark.attempts.patch import claw_image_ref, model_for_task, profile_fields
from clawmark.attempts.phases import open_cell
from clawmark.attempts.stages import run_stages
from clawmark.claws import Budgets, ClawAdapter
from clawmark.claws.profiles import ProfileUse, claw_for
from clawmark.gateway.cassettes import is_scripted
from clawmark.results import AttemptRow, ResultStore, Track, config_hash
from clawmark.runtime.images import image_ref
from clawmark.taskenv.config import WORKSTATION_RECIPE, base_skills_for, runtime_profile
from clawmark.taskenv.headed import task_image_ref
from clawmark.taskenv.inject import skills_identity
from clawmark.webproxy.config import WebProxyConfig
from clawmark.webproxy.proxied_task import web_identity, web_task_hash

SCRIPTED_ROLE_FAMILIES = {"supervisor": "scripted/sup-{task_id}", "user_simulator": "scripted/sim-{task_id}"}


class ClosedLoopAttemptConfig(BaseModel):
    """The fixed protocol of a closed-loop attempt; saved as config.json with every result."""

    model_config = ConfigDict(hide_input_in_errors=True)  # a refused credential is never echoed

    budgets: Budgets = Field(default_factory=Budgets, description="Claw limits; seconds = per-turn cap too.")
    claw_settings: NoCredentials = Field(default_factory=dict, description="Overrides of the claw's Config.")
    profile: ProfileUse = Field(default_factory=ProfileUse, description="Protocol profile the claws run under "
                                "(clawmark.claws.profiles); the preamble stays clawmark's under every one.")
    model_params: NoCredentials = Field(default_factory=dict, description="Fixed model params (cell identity).")
    supervisor_model: str | None = Field(None, description="Default: the task's codex.supervisor.model, then "
                                         "scripted/sup-{task_id} for a scripted executor, else the executor model.")
    simulator_model: str | None = Field(None, description="Same rule, with codex.user_simulator and sim-.")
    image_model: str | None = Field(None, description="Vision fallback; default: the task's image_model.")
    image: str | None = Field(None, description="Task container image; None = the workstation image.")
    network_policy: Literal["none", "registries-only", "full"] = "full"
    snapshot: bool = Field(False, description="Run the task's task_snapshot text with *_snapshot.json sources.")
    base_skills: list[Path] | None = Field(None, description="Skill folders installed for every task; None = "
                                           "upstream's base skills for upstream-layout tasks, none for clawmark's own.")
    service_timeout_s: float = Field(1200.0, gt=0, description="Deadline of one oneshot service.")
    service_ready_s: float = Field(20.0, gt=0, description="How long a background service may take to listen.")
    turn_timeout_s: float | None = Field(None, gt=0, description="Override of the task's timeout_seconds.")
    total_timeout_s: float | None = Field(None, gt=0, description="Override of the task's max_total_seconds.")
    judge_budget_usd: float = Field(2.0, ge=0, description="Spend cap of each judge role (supervisor, user simulator), "
                                    "its own: the claw's spend (budgets.cost_usd) never reaches it.")
    judge: Literal["prompt", "agent"] = Field(
        "prompt", description="How the supervisor and the user simulator judge: prompt = one model call over "
        "bounded evidence (cheap; the demo's); agent = each role runs the Codex CLI in a judge container of its "
        "own over a role workspace built as upstream's (clawmark/judge/agentic), reaching only the gateway.")
    deadline_grace_s: float = Field(30.0, ge=0, description="Host deadline of a turn = its budget + this.")
    runtime_preamble: bool = Field(True, description="Open the first executor prompt with the container's facts "
                                   "(workspace, results root, skills' SKILL.md, display, browser), as UniClawBench's "
                                   "runner does (clawmark/claws/preamble.py); false = the bare task text.")
    web: WebProxyConfig | None = Field(None, description="The web proxy (record/replay, block rules) in front "
                                       "of the task container; None = no proxy (clawmark/webproxy).")
    executor: Literal["auto", "root", "user"] = Field(
        "auto", description="Who the executor is, inside a container that keeps its dropped capabilities and "
        "no-new-privileges: root (upstream's), user (uid 1000), auto = root for upstream-layout tasks.")
    env_file: Path | None = Field(None, description="KEY=VALUE file of the tasks' `.privacy` values (as upstream's "
                                  "configs/privacy.local.env), over the environment; each value reaches the "
                                  "executor's environment only. Not part of the protocol: where keys live is no "
                                  "measured condition.")


def role_models(task: Any, model: str, config: ClosedLoopAttemptConfig) -> dict[str, str]:
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
    task: Any,
    claw_name: str,
    model: str,
    seed: int,
    store: ResultStore,
    sweep_id: str,
    gateway: Any,
    *,
    config: ClosedLoopAttemptConfig | None = None,
) -> AttemptRow:
    """Run one cell and commit its row; infra failures become error rows, never exceptions."""
    attempt = open_closed_loop_attempt(task, claw_name, model, seed, store, sweep_id, gateway, config=config)
    return run_stages(attempt, CLOSED_LOOP_STAGES)


def open_closed_loop_attempt(task: Any, claw_name: str, model: str, seed: int, store: ResultStore, sweep_id: str,
                             gateway: Any, *, config: ClosedLoopAttemptConfig | None = None) -> Any:
    """The state of a fresh attempt of the cell (clawmark/attempts/closed_loop_stages.py), its
    folder laid out and its config saved; the stages in CLOSED_LOOP_STAGES run it to its row."""
    claw, config = claw_for(claw_name, config or ClosedLoopAttemptConfig())
    models = role_models(task, model, config)
    fields = identity_fields(task, claw, model, seed, sweep_id, config, models)
    layout, attempt_id, saved_hash = open_cell(store, sweep_id, fields, _saved_config(task, claw, models, seed, config))
    return ClosedLoopAttempt(task, claw, models, attempt_id, layout, gateway, config, store=store, fields=fields,
                             saved_hash=saved_hash, model=model)


def identity_fields(task: Any, claw: ClawAdapter, model: str, seed: int, sweep_id: str,
                    config: ClosedLoopAttemptConfig, models: dict[str, str]) -> dict[str, Any]:
    claw_image = claw_image_ref(claw)
    image = {"image": claw_image} if claw_image else {}  # a claw's image layer is part of the claw
    judges = {"roles": {k: v for k, v in models.items() if k != "executor"}, "snapshot": config.snapshot,
              "task_image": task_image_ref(task, config.image) or _workstation_ref(),
              "network_policy": config.network_policy,
              "base_skills": skills_identity(base_skills_for(task, config.base_skills)),
              "image_model": config.image_model, "turn_timeout_s": config.turn_timeout_s,
              "total_timeout_s": config.total_timeout_s, "preamble": preamble_digest(task, claw, config),
              **web_identity(config.web), **_profile_identity(task, config),  # absent = no proxy: old keys hold
              **({} if config.judge == "prompt" else {"judge": config.judge})}  # prompt cells keep their keys
    return {
        "sweep_id": sweep_id,
        "track": Track.CLOSED_LOOP,
        "task_id": task.task_id,
        "task_hash": web_task_hash(task, config.web),  # folds in the web archive when replaying
        "category": task.spec.category,
        "capability": task.capability,
        "language": task.language,
        "claw": claw.name,
        "claw_version": claw.version,
        "claw_settings_hash": config_hash({**claw.settings(), "budgets": config.budgets.model_dump(), **image}),
        **profile_fields(claw),
        "model": model,
        "model_params_hash": config_hash({**config.model_params, "closed_loop": judges}),
        "seed": seed,
    }


def _workstation_ref() -> str:
    """The task image's content-hash tag: an edited workstation recipe re-keys closed-loop cells."""
    try:
        return image_ref(WORKSTATION_RECIPE)
    except Exception as exc:  # noqa: BLE001 - a missing recipe shows at provision, as a typed row
        return f"unbuildable: {type(exc).__name__}"


def _saved_config(task: Any, claw: ClawAdapter, models: dict[str, str], seed: int,
                  config: ClosedLoopAttemptConfig) -> dict[str, Any]:
    return {"task_id": task.task_id, "task_file": str(task.task_file), "claw": claw.settings(),
            "models": models, "seed": seed, "protocol": config.model_dump(mode="json"),
            "task_warnings": list(getattr(task, "warnings", []))}  # what the catalog could not extract


def _profile_identity(task: Any, config: ClosedLoopAttemptConfig) -> dict[str, str]:
    """The executor's runtime profile in the cell key; absent for the unprivileged user, so the
    keys of cells run before profiles existed (all of them user-least) hold."""
    profile = runtime_profile(task, config.executor)
    return {} if profile == "user-least" else {"runtime_profile": profile}
