"""The fixed protocol of a closed-loop attempt: the common part (clawmark/attempts/base.py) and
what only the closed-loop track has (its judges and their budget, the task container, services,
turn limits, the runtime preamble, the web proxy, who the executor is)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from clawmark.attempts.base import AttemptConfig
from clawmark.claws import Budgets
from clawmark.claws.profiles import ProfileUse
from clawmark.webproxy.config import WebProxyConfig

# Fields of the shared base the closed-loop track did not have before it (see later_fields_at_default).
LATER_FIELDS = ("stop_grace_s", "fallback_price", "cache_setup")


class ClosedLoopAttemptConfig(AttemptConfig):
    """The fixed protocol of a closed-loop attempt; saved as config.json with every result."""

    budgets: Budgets = Field(default_factory=Budgets, description="Claw limits; seconds = per-turn cap too.")
    profile: ProfileUse = Field(default_factory=ProfileUse, description="Protocol profile the claws run under "
                                "(clawmark.claws.profiles); the preamble stays clawmark's under every one.")
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
    cache_setup: bool = Field(True, description="Start each attempt from the task's set-up captured once per input "
                              "hash (clawmark/taskenv/setup_cache.py): the claw sees the same world, the oneshot "
                              "services (apt, pip, fixtures) run once per task, not once per attempt.")
    env_file: Path | None = Field(None, description="KEY=VALUE file of the tasks' `.privacy` values (as upstream's "
                                  "configs/privacy.local.env), over the environment; each value reaches the "
                                  "executor's environment only. Not part of the protocol: where keys live is no "
                                  "measured condition.")

    def later_fields_at_default(self) -> set[str]:
        """Fields the closed-loop protocol gained with the shared attempt base, while they hold
        their defaults: left out of what is pinned and saved, so sweeps pinned before keep theirs."""
        return {name for name in LATER_FIELDS if getattr(self, name) == type(self).model_fields[name].default}

    def protocol_dump(self) -> dict[str, object]:
        """The config as saved with every result (config.json)."""
        return self.model_dump(mode="json", exclude=self.later_fields_at_default())


def role_caps(config: ClosedLoopAttemptConfig) -> dict[str, float]:
    """Each role's own cost cap: the executor's (`budgets.cost_usd`) is its alone, each judge
    role has `judge_budget_usd`, so an executor that spends its cap still has its turn judged."""
    judge = config.judge_budget_usd
    return {"executor": config.budgets.cost_usd, "supervisor": judge, "user_simulator": judge}
