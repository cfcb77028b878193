"""Cassettes: the scripts of the scripted model (format: tasks_catalog/cassettes/README.md).

Step choice is stateless, so concurrent attempts and resumed ones replay identically:
triggers (steps with `match`) are tried first, in file order, against the latest user or tool
message; otherwise the k-th script step (no `match`) answers a request holding k assistant
messages. Like a real model, one cassette can serve claws with different tools: the first
`variants` entry whose `offers` the request's tools include plays its own steps instead."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator

from clawmark.gateway.token_price import Price
from clawmark.settings import TASKS_CATALOG, settings

SCRIPTED_PREFIX = "scripted/"


def is_scripted(model: str) -> bool:
    """`scripted/<cassette>` names a cassette the scripted backend replays, not a real model."""
    return model.startswith(SCRIPTED_PREFIX)

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class CassetteError(ValueError):
    """A cassette is missing, malformed, or has no step for a request (HTTP 400 upstream)."""


class StepUsage(BaseModel):
    prompt: int | None = Field(None, ge=0, description="Prompt tokens; default: ~chars/4 of the request.")
    cached: int = Field(0, ge=0, description="Of which read from cache.")
    completion: int | None = Field(None, ge=0, description="Completion tokens; default: ~chars/4 of the reply.")
    reasoning: int = Field(0, ge=0, description="Of which reasoning.")


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict, description="A mapping (sent as JSON) or a JSON string.")
    id: str | None = None

    def arguments_json(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


class Step(BaseModel):
    """One assistant reply."""

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    match: str | None = Field(None, description="Substring of the latest user/tool message that selects this step.")
    turn: int | None = Field(None, ge=0, description="With `match`: only when the request has this many assistant messages.")
    usage: StepUsage | None = None
    latency_s: float = Field(0.0, ge=0, le=600, description="Simulated time before the reply starts.")
    finish_reason: str | None = None


class Variant(BaseModel, extra="forbid"):
    """The steps played to a claw that offers these tools (its tool set differs from the default's)."""

    offers: list[str] = Field(min_length=1, description="Tool names the request must all offer.")
    steps: list[Step] = Field(min_length=1)


class Cassette(BaseModel):
    name: str = ""
    description: str = ""
    steps: list[Step] = Field(min_length=1)
    variants: list[Variant] = Field(default_factory=list, description="Tried in order before `steps`.")
    price: Any = Field(None, description="USD per million tokens, as in a price file; default: the scripted price.")

    @field_validator("price")
    @classmethod
    def _price(cls, value: object) -> Price | None:
        return None if value is None else Price.model_validate(value)

    def steps_for(self, tools: list[str] | None) -> list[Step]:
        """The steps played to a request offering `tools` (names)."""
        offered = set(tools or ())
        return next((v.steps for v in self.variants if offered.issuperset(v.offers)), self.steps)

    def choose(self, messages: list[dict], tools: list[str] | None = None) -> tuple[int, Step]:
        """The step answering `messages` (offering `tools`), and its index; CassetteError when none does."""
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        latest = latest_prompt_text(messages)
        steps = self.steps_for(tools)
        for index, step in enumerate(steps):
            if step.match is not None and step.match in latest and step.turn in (None, turn):
                return index, step
        script = [(i, s) for i, s in enumerate(steps) if s.match is None]
        if turn < len(script):
            return script[turn]
        raise CassetteError(
            f"cassette {self.name!r} has no step for a request with {turn} assistant messages "
            f"(script has {len(script)} steps, no trigger matched the latest message {latest[:80]!r})"
        )


def offered_tools(tools: list | None) -> list[str]:
    """Names of the tools an OpenAI chat request offers."""
    return [str((t.get("function") or {}).get("name", t.get("name", ""))) for t in tools or () if isinstance(t, dict)]


# OpenClaw appends a user message holding nothing but a block of its own runtime context to some
# requests (with its session tools on: after every tool result). That is the claw talking, not the
# user or a tool, so triggers read the message before it.
CLAW_CONTEXT_BLOCK = ("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>", "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>")


def latest_prompt_text(messages: list[dict]) -> str:
    for message in reversed(messages):
        if message.get("role") in ("user", "tool"):
            text = content_text(message.get("content"))
            if message.get("role") == "user" and _only_claw_context(text):
                continue
            return text
    return ""


def _only_claw_context(text: str) -> bool:
    begin, end = CLAW_CONTEXT_BLOCK
    text = text.strip()
    return text.startswith(begin) and text.endswith(end) and text.count(begin) == 1


def content_text(content: object) -> str:
    """Text of an OpenAI message content: a string or a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def cassette_dirs() -> list[Path]:
    return [*settings().cassettes, TASKS_CATALOG / "cassettes"]


def cassette_models() -> list[str]:
    """`scripted/<name>` of every cassette on the search path: the models usable with no key."""
    names = {path.stem for folder in cassette_dirs() if folder.is_dir() for suffix in (".yaml", ".yml", ".json")
             for path in folder.glob(f"*{suffix}") if NAME_RE.match(path.stem)}
    return [f"{SCRIPTED_PREFIX}{name}" for name in sorted(names)]


def model_list(models: list[str]) -> dict:
    """An OpenAI `/v1/models` body."""
    return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "clawmark"} for m in models]}


def find_cassette(name: str, dirs: list[Path] | None = None) -> Path:
    if not NAME_RE.match(name):
        raise CassetteError(f"cassette name {name!r}: expected letters, digits, '.', '_' or '-'")
    dirs = cassette_dirs() if dirs is None else dirs
    for folder in dirs:
        for suffix in (".yaml", ".yml", ".json"):
            if (path := folder / f"{name}{suffix}").is_file():
                return path
    raise CassetteError(f"no cassette {name!r} in {', '.join(str(d) for d in dirs)}")


def load_cassette(path: Path) -> Cassette:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cassette = Cassette.model_validate(data)
    except (OSError, yaml.YAMLError) as exc:
        raise CassetteError(f"{path}: cannot read cassette ({exc})") from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(top)"
        raise CassetteError(f"{path}: field {field!r}: {err['msg']}") from exc
    return cassette.model_copy(update={"name": cassette.name or path.stem})


_cache: dict[Path, tuple[float, Cassette]] = {}
# Where a cassette was found in the first folder of its search path (every call of a scripted model
# looks its cassette up twice, for its reply and for its price): one stat instead of up to seven.
_first_folder_hits: dict[tuple[str, Path], Path] = {}


def get_cassette(name: str) -> Cassette:
    """Load by name, cached until the file changes (recording appends while replaying is possible)."""
    dirs = cassette_dirs()
    path = _first_folder_hits.get((name, dirs[0]))
    try:
        mtime = path.stat().st_mtime if path is not None else None
    except FileNotFoundError:  # deleted since: looked for again
        mtime = None
    if mtime is None:
        path = find_cassette(name, dirs)
        mtime = path.stat().st_mtime
        if path.parent == dirs[0] and path.suffix == ".yaml":  # nothing before it in the search order
            _first_folder_hits[(name, dirs[0])] = path
    hit = _cache.get(path)
    if hit is None or hit[0] != mtime:
        hit = _cache[path] = (mtime, load_cassette(path))
    return hit[1]
