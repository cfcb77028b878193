"""Protocol profiles: the claws as a paper's runner ran them, so a clawmark row can stand beside it.

A profile (``tasks_catalog/profiles/<name>.yaml``) fixes, per claw, the version (the image recipe
that holds it), the patch prompt template, the step / time / cost limits and the claw's own
settings (fields of its adapter's ``Config``). ``clawmark`` is today's defaults and fixes nothing;
``ucb-paper`` and ``csb-paper`` are UniClawBench's and Claw-SWE-Bench's runners. A claw the profile
does not name is refused: a row that says ``csb-paper`` ran the paper's protocol.

Upstream prompt texts are protocol data, never copied into this tree: a profile names the file
inside an upstream checkout, and the user points the profile at that checkout
(``profiles.<key>.checkout: PATH`` in the sweep, ``--checkout`` of ``clawmark run``); the text is
read at run time and its digest is part of the claw's settings, so of the cell key. The closed-loop
preamble stays clawmark's (clawmark.claws.preamble) under every profile.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, Field, ValidationError

from clawmark.claws.base import Budgets, ClawAdapter, ClawError
from clawmark.claws.registry import get_claw
from clawmark.settings import TASKS_CATALOG

PROFILES_DIR = TASKS_CATALOG / "profiles"
C = TypeVar("C", bound=BaseModel)  # an attempt config: claw_settings, budgets, profile
DEFAULT_PROFILE = "clawmark"


class ProfileError(ClawError):
    """A profile, its use or its upstream checkout is wrong; the message names the file or field."""


class BudgetPins(BaseModel, extra="forbid"):
    """The limits a profile fixes for a claw (unset = the attempt's own)."""

    steps: int | None = Field(None, ge=1)
    seconds: float | None = Field(None, gt=0)
    cost_usd: float | None = Field(None, ge=0)


class ClawPins(BaseModel, extra="forbid"):
    """What a profile fixes for one claw."""

    version: str | None = Field(None, description="The claw's version; with `image`, the recipe that holds it. "
                                                  "For a court on OpenClaw (edict): the OpenClaw release it runs on.")
    image: str | None = Field(None, description="Image recipe (images/<name>) of that version.")
    prompt: str | None = Field(None, description="Patch prompt template: a path inside the profile's upstream "
                                                 "checkout ({problem_statement}, {base_commit}); unset = clawmark's.")
    budgets: BudgetPins = Field(default_factory=BudgetPins)
    settings: dict[str, Any] = Field(default_factory=dict, description="Fields of the claw adapter's Config.")
    source: str = Field("", description="Where upstream sets these (file and line), for the reader.")


class ProtocolProfile(BaseModel, extra="forbid"):
    """One protocol profile file."""

    name: str
    description: str
    upstream: str = Field("", description="Repository and commit whose runner this profile follows.")
    checkout_key: str | None = Field(None, description="Key under `profiles:` naming the upstream checkout that "
                                                       "its prompt files are read from; None = it reads none.")
    every_claw: bool = Field(False, description="True: every claw may run under it unchanged (clawmark's own).")
    claws: dict[str, ClawPins] = Field(default_factory=dict)


class ProfileSource(BaseModel, extra="forbid"):
    """Where the user keeps a profile's upstream material (sweep `profiles.<key>`)."""

    checkout: Path = Field(description="A checkout of the upstream repository the profile follows.")


class ProfileUse(BaseModel, extra="forbid"):
    """Which profile an attempt runs under, and where its upstream checkouts are."""

    name: str = Field(DEFAULT_PROFILE, description="Profile name (tasks_catalog/profiles/<name>.yaml).")
    sources: dict[str, ProfileSource] = Field(default_factory=dict, description="Upstream checkouts by profile "
                                                                                "key, e.g. csb_paper.")


def profile_names() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.yaml"))


@lru_cache(maxsize=None)
def load_profile(name: str) -> ProtocolProfile:
    path = PROFILES_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ProfileError(f"profile: unknown protocol profile {name!r}; expected one of: {', '.join(profile_names())}")
    try:
        profile = ProtocolProfile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ProfileError(f"{path}: not a protocol profile: {exc}") from exc
    if profile.name != name:
        raise ProfileError(f"{path}: field `name` is {profile.name!r}, expected {name!r} (the file's name)")
    return profile


def pins_for(profile: ProtocolProfile, claw_name: str) -> ClawPins:
    """What the profile fixes for the claw; a baseline that calls no model (oracle, nop) runs
    unchanged under every profile, any other claw the profile does not name is refused."""
    if claw_name in profile.claws:
        return profile.claws[claw_name]
    if profile.every_claw or not get_claw(claw_name).calls_model:
        return ClawPins()
    raise ProfileError(f"profile {profile.name!r} does not run claw {claw_name!r} ({profile.upstream or 'no upstream'} "
                       f"ran: {', '.join(sorted(profile.claws))})")


def prompt_text(profile: ProtocolProfile, pins: ClawPins, use: ProfileUse) -> str | None:
    """The upstream prompt template the profile names, read from the user's checkout; None = clawmark's."""
    if pins.prompt is None:
        return None
    field = f"profiles.{profile.checkout_key}.checkout"
    source = use.sources.get(profile.checkout_key or "")
    if source is None:
        raise ProfileError(f"{field}: profile {profile.name!r} reads its prompt {pins.prompt!r} from a checkout of "
                           f"{profile.upstream}; set {field} to that checkout's path")
    path = source.checkout.expanduser() / pins.prompt
    if not path.is_file():
        raise ProfileError(f"{field}: {path} is not a file; expected {pins.prompt!r} of a checkout of {profile.upstream}")
    text = path.read_text(encoding="utf-8")
    if "{problem_statement}" not in text:
        raise ProfileError(f"{field}: {path} has no {{problem_statement}} placeholder; not a patch prompt template")
    return text


def pinned_budgets(budgets: Budgets, pins: ClawPins) -> Budgets:
    return budgets.model_copy(update=pins.budgets.model_dump(exclude_none=True))


def profiled_claw(claw_name: str, settings: dict[str, Any], budgets: Budgets,
                  use: ProfileUse | None = None) -> tuple[ClawAdapter, Budgets]:
    """The adapter of ``claw_name`` and its limits under the profile ``use`` names: the profile's
    settings under the sweep's own overrides of fields the profile leaves alone."""
    use = use or ProfileUse()
    profile = load_profile(use.name)
    pins = pins_for(profile, claw_name)
    clash = sorted(set(settings) & set(pins.settings))
    if clash:
        raise ProfileError(f"claw_settings: {', '.join(clash)} of {claw_name} are fixed by profile {profile.name!r}; "
                           "drop them or run under the clawmark profile")
    adapter = get_claw(claw_name, {**pins.settings, **settings})
    unknown = sorted(set(pins.settings) - set(type(adapter.config).model_fields))
    if unknown:
        raise ProfileError(f"{PROFILES_DIR / profile.name}.yaml: claws.{claw_name}.settings: {', '.join(unknown)} "
                           f"are not settings of {claw_name}")
    adapter.pin(profile.name, version=pins.version, image=pins.image, prompt=prompt_text(profile, pins, use),
                fixed=fixed_values(pins))
    return adapter, pinned_budgets(budgets, pins)


def fixed_values(pins: ClawPins) -> dict[str, Any]:
    """What the profile fixed, as the row and config.json name it (the prompt by file)."""
    values: dict[str, Any] = {"version": pins.version, "image": pins.image, "prompt": pins.prompt,
                              "budgets": pins.budgets.model_dump(exclude_none=True), "settings": pins.settings}
    return {key: value for key, value in values.items() if value not in (None, {}, [])}


def claw_for(claw_name: str, config: C) -> tuple[ClawAdapter, C]:
    """The adapter of ``claw_name`` under an attempt config's profile, and that config with the
    limits the profile fixed for the claw: the one way every attempt and planner makes a claw."""
    claw, budgets = profiled_claw(claw_name, config.claw_settings, config.budgets,  # type: ignore[attr-defined]
                                  config.profile)  # type: ignore[attr-defined]
    return claw, config.model_copy(update={"budgets": budgets})
