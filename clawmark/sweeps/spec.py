"""What a sweep runs, as one pydantic model loaded from YAML (or built in code)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.credentials import CREDENTIAL_ERROR
from clawmark.attempts.patch import PatchAttemptConfig
from clawmark.catalog.errors import CatalogError, from_validation
from clawmark.claws.profiles import (DEFAULT_PROFILE, ProfileError, ProfileSource, ProfileUse, load_profile,
                                     profiled_claw)
from clawmark.jsontypes import JsonValue
from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv.config import BASE_SKILLS_DIR
from clawmark.webproxy.config import IRREVERSIBLE_RULES, BlockRule, WebProxyConfig

NIGHTLY_SPEC = TASKS_CATALOG / "sweeps" / "nightly.yaml"  # the nightly flow's sweep, and rerun-failed's default

SweepWebMode = Literal["off", "live", "record", "replay", "replay-or-live"]


class SweepWeb(BaseModel, extra="forbid", hide_input_in_errors=True):
    """The web of every closed-loop cell (clawmark/webproxy): the proxy's mode, where the
    per-task archives live, and the requests it refuses in every mode."""

    mode: SweepWebMode = Field(description="off: no proxy; live: forward (rules apply); record: save every "
                               "exchange; replay: serve only the archive; replay-or-live: misses go live.")
    archive: Path | None = Field(None, description="Folder of the per-task archives (<archive>/<task_id>/); "
                                 "relative to the sweep file; default $CLAWMARK_HOME/web_archives.")
    irreversible: bool = Field(True, description="Also block the starting set of checkout / booking / payment "
                               "/ send endpoints (clawmark.webproxy.IRREVERSIBLE_RULES).")
    block: list[BlockRule] = Field(default_factory=list, description="More rules: {id, methods, url regex}.")
    match_headers: list[str] | None = Field(None, description="Request headers that select content, matched on "
                                            "replay (default: the proxy's, Accept and Accept-Language).")
    match_cookies: bool = Field(True, description="Match cookies on replay; false for a site whose cookies vary by run.")

    def proxy_config(self) -> WebProxyConfig | None:
        if self.mode == "off":
            return None
        rules = [*(IRREVERSIBLE_RULES if self.irreversible else []), *self.block]
        matching = {"match_headers": self.match_headers} if self.match_headers is not None else {}
        return WebProxyConfig(mode=self.mode, archive_root=self.archive, block=rules,
                              match_cookies=self.match_cookies, **matching)


class ClosedLoopPart(BaseModel, extra="forbid", hide_input_in_errors=True):
    """The closed-loop cells of a sweep: task packages × the sweep's claws that run closed-loop.
    `web` and `base_skills` are part of the protocol: they land in `attempt` (and so in every
    cell key), where giving them twice is an error."""

    tasks_dir: Path = Field(TASKS_CATALOG / "closed_loop", description="A task tree (either layout).")
    suite: str | None = Field(None, description="Suite name in tasks_catalog/suites; None = every task of the tree.")
    tasks: list[str] = Field(default_factory=list, description="Explicit task ids; override `suite`.")
    claws: list[str] | None = Field(None, description="Claws for these cells; default: the sweep's claws that run closed-loop.")
    web: SweepWeb | None = Field(None, description="The web proxy in front of every task container; none = no proxy.")
    base_skills: list[str] = Field(default_factory=list, description="Skills installed in every task container: "
                                   "names in tasks_catalog/base_skills, or skill folders (relative to the sweep file).")
    judge: Literal["prompt", "agent"] | None = Field(None, description="How the judges run (lands in "
                                                     "attempt.judge): prompt or agent; none = the attempt's.")
    cache_setup: bool | None = Field(None, description="Start attempts from each task's set-up captured once "
                                     "(lands in attempt.cache_setup; default on); false = every attempt sets up anew.")
    attempt: ClosedLoopAttemptConfig = Field(default_factory=ClosedLoopAttemptConfig, description="The fixed protocol.")

    @field_validator("base_skills")
    @classmethod
    def _skills_exist(cls, entries: list[str]) -> list[str]:
        for entry in entries:
            _skill_folder(entry)
        return entries

    @model_validator(mode="after")
    def _into_the_protocol(self) -> "ClosedLoopPart":
        # A spec that went through model_dump and back already holds them in `attempt`: same is fine.
        update = {}
        if self.web is not None:
            web = self.web.proxy_config()
            if self.attempt.web not in (None, web):
                raise ValueError("give the web proxy once: closed_loop.web or closed_loop.attempt.web")
            if web is not None and self.attempt.network_policy == "registries-only":
                raise ValueError("web proxy with network_policy none or full (registries-only has its own proxy)")
            update["web"] = web
        if self.base_skills:
            folders = [_skill_folder(entry) for entry in self.base_skills]
            if self.attempt.base_skills not in (None, [], folders):
                raise ValueError("give base skills once: closed_loop.base_skills or closed_loop.attempt.base_skills")
            update["base_skills"] = folders
        for name, what in (("judge", "the judge"), ("cache_setup", "cache_setup")):  # given here or in attempt
            value = getattr(self, name)
            if value is None:
                continue
            if getattr(self.attempt, name) != value and name in self.attempt.model_fields_set:
                raise ValueError(f"give {what} once: closed_loop.{name} or closed_loop.attempt.{name}")
            update[name] = value
        if update:
            self.attempt = self.attempt.model_copy(update=update)
        return self


def _skill_folder(entry: str) -> Path:
    folder = Path(entry) if ("/" in entry or entry.startswith(".")) else BASE_SKILLS_DIR / entry
    if not (folder / "SKILL.md").is_file():
        known = ", ".join(sorted(p.name for p in BASE_SKILLS_DIR.iterdir() if (p / "SKILL.md").is_file()))
        raise ValueError(f"a base skill name ({known}) or a folder holding SKILL.md, not {entry!r}")
    return folder.resolve()


class SweepSpec(BaseModel, extra="forbid", hide_input_in_errors=True):
    """One sweep over both tracks. Every cell is (task, claw, model, seed) under one protocol.
    Errors never echo the input: a credential put in by mistake must not reach a log."""

    sweep_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Folder and row key of the sweep.")
    instances: Path | None = Field(TASKS_CATALOG / "swe" / "instances.jsonl",
                                   description="SWE-bench-format rows of the patch cells; null = no patch cells.")
    suite: str | None = Field(None, description="Suite name in tasks_catalog/suites; None = every instance.")
    tasks: list[str] = Field(default_factory=list, description="Explicit instance ids; override `suite`.")
    claws: list[str] = Field(min_length=1, description="Claw names (see clawmark.claws registry).")
    models: list[str] = Field(min_length=1, description="litellm model strings, or scripted/<cassette>.")
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, description="Repeats per cell.")
    attempt: PatchAttemptConfig = Field(default_factory=PatchAttemptConfig, description="The fixed protocol.")
    max_cost_usd: float | None = Field(None, gt=0, description="Stop scheduling cells once spent ≥ this.")
    max_parallel: int = Field(1, ge=1, le=64, description="Cells run at once (Docker slots).")
    closed_loop: ClosedLoopPart | None = Field(None, description="Closed-loop cells of the sweep (none when absent).")
    profile: str = Field(DEFAULT_PROFILE, description="Protocol profile of every cell (tasks_catalog/profiles): "
                                                      "clawmark, ucb-paper or csb-paper.")
    profiles: dict[str, ProfileSource] = Field(default_factory=dict, description="Upstream checkouts the profiles "
                                               "read their prompts from, e.g. csb_paper: {checkout: PATH}.")

    @field_validator("claws", "models")
    @classmethod
    def _unique(cls, values: list[str]) -> list[str]:
        if len(set(values)) != len(values):
            raise ValueError("each entry once")
        return values

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, name: str) -> str:
        try:
            load_profile(name)
        except ProfileError as exc:
            raise ValueError(str(exc)) from None
        return name

    @model_validator(mode="after")
    def _profile_of_every_cell(self) -> "SweepSpec":
        """Both tracks' attempts run under the sweep's profile (the attempt configs carry it)."""
        use = ProfileUse(name=self.profile, sources=self.profiles)
        self.attempt.profile = use
        if self.closed_loop is not None:
            self.closed_loop.attempt.profile = use
        for name in self.claws:  # a claw the profile does not run, or its missing checkout, fails the load
            try:
                profiled_claw(name, self.attempt.claw_settings, self.attempt.budgets, use)
            except ProfileError as exc:
                raise ValueError(str(exc)) from None
        return self


def load_spec(path: str | Path) -> SweepSpec:
    """A sweep file; relative `instances` paths resolve against the file's folder."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogError(path, "<file>", f"a readable YAML mapping ({type(exc).__name__}: {exc})") from exc
    if not isinstance(raw, dict):
        raise CatalogError(path, "<root>", "a mapping of sweep fields")
    if raw.get("instances") and not Path(str(raw["instances"])).is_absolute():
        raw["instances"] = str(path.parent / str(raw["instances"]))
    if isinstance(raw.get("closed_loop"), dict):
        raw["closed_loop"] = _closed_loop_paths(raw["closed_loop"], path.parent)
    if isinstance(raw.get("profiles"), dict):
        raw["profiles"] = {key: {**source, "checkout": str(path.parent / str(source["checkout"]))}
                           if isinstance(source, dict) and source.get("checkout") else source
                           for key, source in raw["profiles"].items()}
    try:
        return SweepSpec.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        if first["type"] == CREDENTIAL_ERROR:  # say where, never echo the value
            raise CatalogError(path, ".".join(str(p) for p in first["loc"]), first["msg"]) from None
        raise from_validation(path, err) from err


def rebased(raw: JsonValue, old_root: str, new_root: str) -> JsonValue:
    """A resolved spec (as JSON) with its paths under the coordinator's checkout `old_root` moved
    under `new_root`, this machine's own (a pool worker's checkout or image); nothing else changes.
    Paths outside the checkout stay as they are: such files must be at the same path on workers."""
    if isinstance(raw, dict):
        return {key: rebased(value, old_root, new_root) for key, value in raw.items()}
    if isinstance(raw, list):
        return [rebased(value, old_root, new_root) for value in raw]
    if isinstance(raw, str) and (raw == old_root or raw.startswith(old_root.rstrip("/") + "/")):
        return new_root.rstrip("/") + raw[len(old_root.rstrip("/")):]
    return raw


def _closed_loop_paths(closed: dict, base: Path) -> dict:
    """tasks_dir, web.archive, attempt.env_file and base-skill folders (not bare names) relative to the sweep file."""
    def anchored(value) -> str:
        return str(value) if Path(str(value)).is_absolute() else str(base / str(value))

    closed = dict(closed)
    if closed.get("tasks_dir"):
        closed["tasks_dir"] = anchored(closed["tasks_dir"])
    if isinstance(closed.get("web"), dict) and closed["web"].get("archive"):
        closed["web"] = {**closed["web"], "archive": anchored(closed["web"]["archive"])}
    attempt = closed.get("attempt")
    if isinstance(attempt, dict) and attempt.get("env_file"):
        closed["attempt"] = {**attempt, "env_file": anchored(attempt["env_file"])}
    if isinstance(closed.get("base_skills"), list):
        closed["base_skills"] = [anchored(e) if isinstance(e, str) and ("/" in e or e.startswith(".")) else e
                                 for e in closed["base_skills"]]
    return closed
