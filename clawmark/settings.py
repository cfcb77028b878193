"""Every CLAWMARK_* environment variable clawmark reads, in one pydantic-settings class.

`settings()` reads the environment at each call (cached per distinct set of CLAWMARK_* values):
tests and parent processes change these variables after import, and a worker must see them.
An empty value counts as unset. The README's settings table is `settings_table()` (a unit test
compares them). Variables clawmark only *sets* for processes it starts are not here.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import AliasGenerator, BeforeValidator, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TASKS_CATALOG = PROJECT_ROOT / "tasks_catalog"
IMAGES_DIR = PROJECT_ROOT / "images"
PREFIX = "CLAWMARK_"
DEFAULT_REGISTRY_HOSTS = "pypi.org,files.pythonhosted.org,registry.npmjs.org,deb.debian.org,security.debian.org"


def _on_unless(*off: str, lower: bool = False):
    """A switch that is on unless its value is one of `off` (exactly the spellings each one took)."""
    return BeforeValidator(lambda v: v if isinstance(v, bool) else (str(v).lower() if lower else str(v)) not in off)


def _split(separator: str):
    return BeforeValidator(lambda v: v.split(separator) if isinstance(v, str) else v)


def _user_path(value: object) -> object:
    return Path(value).expanduser() if isinstance(value, (str, Path)) else value


UserPath = Annotated[Path, BeforeValidator(_user_path)]


class Settings(BaseSettings):
    """Where clawmark keeps state, how the pieces find each other, and the bounds of a sweep."""

    model_config = SettingsConfigDict(alias_generator=AliasGenerator(validation_alias=lambda f: PREFIX + f.upper()),
                                      case_sensitive=True, env_ignore_empty=True, populate_by_name=True,
                                      frozen=True, validate_default=False)

    # Where state and inputs live
    home: UserPath = Field(PROJECT_ROOT / ".clawmark", description="State root: results, ledgers, caches, "
                           "Prefect home of `clawmark server`, staging of remote stores.")
    results_dir: UserPath = Field(None, validation_alias="CLAWMARK_RESULTS", json_schema_extra={"shown": "`<home>/results`"},
                                  description="Result store root: parquet rows and artifact folders.")
    catalog_dir: UserPath = Field(TASKS_CATALOG, validation_alias="CLAWMARK_CATALOG",
                                  description="Task catalog root (bundled or the user's).")
    prices_file: UserPath | None = Field(None, validation_alias="CLAWMARK_PRICES",
                                         description="YAML of user price overrides, dollars per million tokens.")
    images_dir: Path = Field(IMAGES_DIR, description="Root of the image recipes.")
    edict_checkout: UserPath | None = Field(None, description="A checkout of cft0808/edict: the `edict` claw's agents "
                                            "and personas (its setting `checkout` wins).")
    cassettes: Annotated[list[UserPath], NoDecode, _split(os.pathsep)] = Field(
        [], description="Extra cassette folders (`:`-separated), searched before the bundled ones.")
    lock_dir: Path | None = Field(None, json_schema_extra={"shown": "`/var/lock/clawmark`, else `<home>/locks`"},
                                  description="Folder of the host locks around shared engine state.")
    prefect_home: UserPath = Field(None, json_schema_extra={"shown": "`<home>/prefect`"},
                                   description="PREFECT_HOME of `clawmark server`.")
    mitmdump: str | None = Field(None, description="mitmdump executable of the web proxy (else .venv-webproxy, PATH).")
    # The gateway and the models
    gateway_host: str = Field("127.0.0.1", description="Address the gateway binds on (the pipeline adds the "
                                                       "containers' network address).")
    gateway_port: int = Field(0, description="Port of the gateway; 0 picks a free one.")
    gateway_passthrough: Annotated[bool, _on_unless("0")] = Field(
        True, json_schema_extra={"shown": "`1`"}, description="`0` sends every provider through litellm (no direct OpenAI-compatible passthrough).")
    gateway_timeout_s: float | None = Field(None, json_schema_extra={"shown": "`300`"},
                                            description="Per upstream request of a sweep's gateway, streaming included.")
    gateway_max_retries: int | None = Field(None, json_schema_extra={"shown": "`4`"},
                                            description="Retries of a model call after the first try (retryable errors only).")
    gateway_backoff_base_s: float | None = Field(None, json_schema_extra={"shown": "`1`"},
                                                 description="First backoff ceiling of a model call; doubles per retry.")
    gateway_backoff_max_s: float | None = Field(None, json_schema_extra={"shown": "`60`"},
                                                description="Longest single wait between model call tries, Retry-After included.")
    scripted_url: str | None = Field(None, json_schema_extra={"shown": "one server per process"},
                                     description="Base URL (…/v1) of the scripted model server.")
    # Docker and the host
    gateway_network: str = Field("clawmark-isolated", description="Internal network of the claws (read at import).")
    open_network: str = Field("clawmark-open", description="Network with internet access (read at import).")
    registry_hosts: Annotated[frozenset[str], NoDecode, _split(",")] = Field(
        frozenset(DEFAULT_REGISTRY_HOSTS.split(",")), json_schema_extra={"shown": f"`{DEFAULT_REGISTRY_HOSTS}`"},
        description="Hosts the package-registry proxy lets through, comma-separated (read at import).")
    host_firewall: Annotated[bool, _on_unless("off", "0", "false", "no", lower=True)] = Field(
        True, json_schema_extra={"shown": "`on`"},
        description="`off` skips the host firewall of the clawmark bridges (containers then reach host services).")
    no_pull: Annotated[bool, _on_unless("", "0", "false")] = Field(
        False, json_schema_extra={"shown": "unset"},
        description="`1`: never pull a row's instance image (missing stays `image_missing`); also `clawmark sweep --no-pull`.")
    image_registry: str | None = Field(None, description="`host[:port]` of a Docker registry holding clawmark's images "
                                       "(`clawmark images push`): a missing image is pulled from it before it is built.")
    image_budget_gb: float | None = Field(None, description="Size budget of pulled and derived instance images "
                                                            "(least recently used pruned); unset: no pruning.")
    max_package_mb: float | None = Field(None, json_schema_extra={"shown": "`2048`"},
                                         description="Largest sum of file sizes of one task package.")
    # A sweep's bounds
    stage_retries: int = Field(2, description="Retries of a stage's infrastructure failure (never of a model failure or "
                               "timeout); a retried supervise or follow-up gets the model answers its failed run already "
                               "paid for replayed by the gateway (`replayed: true`, cost 0), so the provider is not billed twice.")
    stage_backoff_s: float = Field(10.0, description="First wait between stage retries.")
    slot_lease_s: float = Field(60.0, description="How long a killed sweep's Docker and model slots stay taken "
                                                  "(at least 60).")
    engine_wait_s: float = Field(900.0, description="How long a sweep waits for a Docker engine that went away "
                                                    "before it stops (read at import).")
    disk_floor_gb: float = Field(5.0, description="Least free disk a cell starts with (prune instance images, "
                                                  "wait, then a typed infra error).")
    disk_wait_s: float = Field(300.0, description="How long a cell waits for disk above the floor.")
    failpoint: str | None = Field(None, description="Tests only: `row-commit[:N]` SIGKILLs the process at the Nth "
                                  "row commit; `supervisor-judged[:N]:raise` / `simulator-answered[:N]:raise` fail "
                                  "the Nth supervise / follow-up with an I/O error after the model answered.")

    @model_validator(mode="after")
    def _under_home(self) -> "Settings":
        for name, below in (("results_dir", "results"), ("prefect_home", "prefect")):
            if getattr(self, name) is None:
                object.__setattr__(self, name, self.home / below)
        return self

    @classmethod
    def from_env(cls) -> "Settings":
        return cls()


class SettingsError(ValueError):
    """A CLAWMARK_* variable holds a value its setting cannot take."""


def settings() -> Settings:
    """The settings of the environment as it is now."""
    return _settings_for(_clawmark_environ())


_RAW_PREFIX = PREFIX.encode()


def _clawmark_environ() -> frozenset:
    """The CLAWMARK_* variables as they are now: the cache key of `_settings_for`."""
    if os.name == "posix":
        # POSIX's os.environ keeps the raw bytes (`_data`): filtering them skips decoding every
        # variable on every call, 5x less work on the gateway's per-call path, which asks often.
        return frozenset((k, v) for k, v in os.environ._data.items() if k.startswith(_RAW_PREFIX))  # type: ignore[attr-defined]
    return frozenset((k, v) for k, v in os.environ.items() if k.startswith(PREFIX))


@lru_cache(maxsize=16)
def _settings_for(environ: frozenset[tuple[str, str]]) -> Settings:
    try:
        return Settings()  # reads os.environ, whose CLAWMARK_* part is `environ`
    except ValidationError as exc:
        raise SettingsError("; ".join(f"{env_name(str(e['loc'][0]))}={e['input']!r}: {e['msg']}"
                                      for e in exc.errors())) from None


settings.cache_clear = _settings_for.cache_clear  # type: ignore[attr-defined]  # callers of the old cached form


def env_name(field: str) -> str:
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info else None
    return str(alias) if alias else field if field.startswith(PREFIX) else PREFIX + field.upper()


def settings_table() -> str:
    """The README's table of every variable, its default and its meaning."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Settings.model_fields.items():
        rows.append(f"| `{env_name(name)}` | {_shown_default(info)} | {info.description} |")
    return "\n".join(rows) + "\n"


def _shown_default(info) -> str:
    extra = info.json_schema_extra or {}
    if "shown" in extra:
        return extra["shown"]
    value = info.default
    if value is None or value == []:
        return "unset"
    if isinstance(value, Path) and value.is_relative_to(PROJECT_ROOT):
        return f"`<repo>/{value.relative_to(PROJECT_ROOT)}`"
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"
