"""Closed-loop task models: the task YAML as written (`TaskSpec`) and the loaded package."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from clawmark.catalog.check_specs import ChecksFile
from clawmark.catalog.eval_rule import Rubric
from clawmark.language import detect_language

ID_REGEX = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
CATEGORY_REGEX = re.compile(r"^([12])0([1-5])_([a-z_]+?)(_zh)?$")
SETUP_CATEGORY_REGEX = re.compile(r"^00\d_[a-z][a-z_]*$")  # 000_template, 001_smoketest
CAPABILITIES = {1: "skill_usage", 2: "exploration", 3: "long_context", 4: "multimodal", 5: "cross_platform"}
EVAL_RULE = "references/eval_rule.md"
SNAPSHOT_SUFFIX = "_snapshot.json"
SNAPSHOT_SWITCH = "SNAPSHOT_MODE"  # the .privacy name that selects a task's offline snapshot path

# "setup": the release's 000_template / 001_smoketest tasks, which measure no capability.
Capability = Literal["skill_usage", "exploration", "long_context", "multimodal", "cross_platform", "setup"]
Language = Literal["en", "zh"]


def parse_category(category: str, task_text: str = "") -> tuple[Language, Capability]:
    """`101_skill_usage` -> ("en", "skill_usage"); `2xx_<capability>_zh` is Chinese (the suffix is
    optional); set-up categories `00x_*` have capability "setup" and the language of `task_text`."""
    if SETUP_CATEGORY_REGEX.match(category):
        return ("zh" if detect_language(task_text) == "zh" else "en"), "setup"
    match = CATEGORY_REGEX.match(category)
    if not match:
        raise ValueError("a category like 101_skill_usage, 201_skill_usage_zh or 001_smoketest")
    language, number, suffix, zh = match.groups()
    if CAPABILITIES[int(number)] != suffix:
        raise ValueError(f"suffix {CAPABILITIES[int(number)]!r} for x0{number} (got {suffix!r})")
    if zh and language == "1":
        raise ValueError(f"no _zh suffix on an English (1xx) category (got {category!r})")
    return ("en" if language == "1" else "zh"), suffix  # type: ignore[return-value]


class ServiceSpec(BaseModel):
    """A process started before the first executor turn, from `services/<path>`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=ID_REGEX)
    path: str | None = Field(None, description="Folder under services/; defaults to the name.")
    start: str = Field(min_length=1, description="Shell command run inside the service folder.")
    oneshot: bool = Field(False, description="Blocks until done (1200 s); failure is an infra error.")

    @model_validator(mode="after")
    def _default_path(self) -> "ServiceSpec":
        if self.path is None:
            self.path = self.name
        return self


class RoleOverride(BaseModel):
    """Per-task settings of the supervisor or the user simulator."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    provider: str | None = None
    reasoning_effort: str | None = None
    instructions: str | None = None
    policy: str | None = None


class CodexSettings(BaseModel):
    """The judging loop: follow-up budget and role overrides."""

    model_config = ConfigDict(extra="allow")

    max_user_followups: int = Field(2, ge=0, le=20, description="Up to 1 + N executor turns.")
    supervisor: RoleOverride | None = None
    user_simulator: RoleOverride | None = None


class TaskSpec(BaseModel):
    """The task YAML exactly as UniClawBench writes it (unknown keys are kept, `privacy` refused)."""

    model_config = ConfigDict(extra="allow")

    task_id: str = Field(pattern=ID_REGEX)
    category: str
    agent_sys: Literal["openclaw", "openclaw_edict", "nanobot"] = "openclaw"
    agent_id: str = Field("main", pattern=ID_REGEX, description="Agent inside the claw (taizi for EDICT).")
    model: str | None = Field(None, description="Default executor model; a sweep overrides it.")
    image_model: str | None = Field(None, description="Vision fallback model.")
    timeout_seconds: int = Field(1200, gt=0, le=86400, description="One executor turn.")
    max_total_seconds: int = Field(1800, gt=0, le=7 * 86400, description="All executor turns of one attempt.")
    success_threshold: float = Field(1.0, ge=0.0, le=1.0)
    task: str = Field(min_length=1, description="The literal request shown to the executor.")
    task_snapshot: str | None = Field(None, description="Replaces `task` in snapshot mode.")
    references: list[str] = Field(description="Supervisor-only files; must include references/eval_rule.md.")
    sources: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    services: list[ServiceSpec] = Field(default_factory=list)
    pre_exec: list[str] = Field(default_factory=list, description="Host-side scripts, not under sources/.")
    pre_exec_parallel_safe: bool = False
    recording: Literal["none", "low", "high"] = "none"
    headed: Literal["auto", True, False] = "auto"
    # clawmark's own field (not in UniClawBench). Left out of the dump when unset, so the
    # content hash, and so the cell keys, of every task that does not write it stay as they were.
    gui: bool | None = Field(None, exclude_if=lambda value: value is None,
                             description="Does `headed: auto` need the desktop? Unset: read off the task.")
    # clawmark's own field too: `.privacy` values reach the executor's environment for upstream-layout
    # tasks (as upstream's runner passes them); clawmark's own tasks give them to the host-side
    # pre_exec only, unless they say so here.
    executor_credentials: bool | None = Field(None, exclude_if=lambda value: value is None,
                                              description="Do the `.privacy` values reach the executor's environment? "
                                              "Unset: yes for upstream-layout tasks, no for clawmark's own.")
    # clawmark's own field too: a task whose set-up must be fresh for every attempt (clawmark/taskenv/setup_cache.py).
    setup_cache: bool | None = Field(None, exclude_if=lambda value: value is None,
                                     description="May the set-up before the first turn be captured once and "
                                     "reused? Unset: yes, unless it reads today's date.")
    codex: CodexSettings = Field(default_factory=CodexSettings)

    @model_validator(mode="before")
    @classmethod
    def _refuse_inline_secrets(cls, data: object) -> object:
        if isinstance(data, dict) and "privacy" in data:
            raise ValueError("no `privacy:` key; list env-var names in the package's .privacy file")
        return data

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        parse_category(value)
        return value

    @field_validator("gui", mode="before")
    @classmethod
    def _gui_is_a_boolean(cls, value: object) -> object:
        # before pydantic's lax bool, which would take "yes", "off" or 1 as a boolean
        if value is not None and not isinstance(value, bool):
            raise ValueError("true or false: does the task need the desktop?")
        return value

    @field_validator("references")
    @classmethod
    def _has_eval_rule(cls, value: list[str]) -> list[str]:
        if EVAL_RULE not in value:
            raise ValueError(f"a list including {EVAL_RULE}")
        return value

    @model_validator(mode="after")
    def _budgets_fit(self) -> "TaskSpec":
        if self.max_total_seconds < self.timeout_seconds:
            raise ValueError("max_total_seconds >= timeout_seconds")
        return self


class ResolvedService(BaseModel):
    spec: ServiceSpec
    folder: Path


class ClosedLoopTask(BaseModel):
    """A loaded task package: the spec plus absolute, checked paths of its resources."""

    spec: TaskSpec
    layout: Literal["uniclaw", "folder"]
    task_file: Path
    package_dir: Path = Field(description="Injection folder (UniClawBench) or the task folder.")
    language: Language
    capability: Capability
    sources_dir: Path | None
    skill_dirs: dict[str, Path]
    services: list[ResolvedService]
    reference_files: list[Path]
    pre_exec_scripts: list[Path]
    privacy_vars: list[str] = Field(description="Env-var names whose values come from the runner's environment.")
    rubric: Rubric
    checks: ChecksFile | None = Field(None, description="Hidden references/checks.yaml, if the task has one.")
    warnings: list[str] = Field(default_factory=list, description="What loaded but could not be extracted "
                                "or found (rubric shape, absent skills), one `FILE: FIELD: ...` line each.")
    hints: dict[str, str] = Field(default_factory=dict, description="Spec fields set by clawmark's overlay "
                                  "for upstream tasks (catalog/overlay.py), with the reason of each.")

    @property
    def task_id(self) -> str:
        return self.spec.task_id

    @property
    def absent_skills(self) -> list[str]:
        """Declared skills the package does not hold (base skills the runtime may install)."""
        return [name for name in (s.removeprefix("skills/").strip("/") for s in self.spec.skills)
                if name not in self.skill_dirs]

    @property
    def eval_rule_file(self) -> Path:
        return self.package_dir / EVAL_RULE

    def prompt(self, snapshot: bool = False) -> str:
        """The request for the executor (and the supervisor: both must read the same text)."""
        return self.spec.task_snapshot if snapshot and self.spec.task_snapshot else self.spec.task

    def source_files(self, snapshot: bool = False) -> list[Path]:
        """Files of sources/ to copy in, as upstream's runner copies them: every one, except
        `*_snapshot.json` when the task has an offline snapshot path (the SNAPSHOT_MODE switch in
        `.privacy`, or task_snapshot text) and snapshot mode is off. Elsewhere (101_35) a
        `*_snapshot.json` is simply the task's input."""
        if self.sources_dir is None:
            return []
        files = sorted(p for p in self.sources_dir.rglob("*") if p.is_file())
        live = not snapshot and (SNAPSHOT_SWITCH in self.privacy_vars or bool(self.spec.task_snapshot))
        return [p for p in files if not (live and p.name.endswith(SNAPSHOT_SUFFIX))]

    def hidden_paths(self) -> list[Path]:
        """Everything the executor must never see: references/, each reference, pre_exec, .privacy."""
        hidden = {self.package_dir / "references", *self.reference_files, *self.pre_exec_scripts}
        privacy = self.package_dir / ".privacy"
        if privacy.exists():
            hidden.add(privacy)
        return sorted(hidden)

    def package_files(self) -> list[Path]:
        """The files `content_hash` reads: every file of the package but the task file, sorted."""
        return sorted(p for p in self.package_dir.rglob("*") if p.is_file() and p != self.task_file)

    def content_hash(self) -> str:
        """Stable across layouts and locations: the parsed spec plus every package file's bytes."""
        digest = hashlib.sha256(json.dumps(self.spec.model_dump(mode="json"), sort_keys=True).encode())
        for path in self.package_files():
            digest.update(path.relative_to(self.package_dir).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]

    def portable(self) -> dict:
        """The model with paths relative to the package: equal for the same task in either layout."""
        data = self.model_dump(mode="json", exclude={"layout", "task_file", "package_dir"})
        return json.loads(json.dumps(data).replace(self.package_dir.as_posix() + "/", "<pkg>/"))
