"""How the web proxy of one attempt behaves: mode, archive, block rules, where mitmdump is."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from clawmark.catalog.errors import CatalogError, from_validation
from clawmark.runtime.registry_proxy import REGISTRY_HOSTS
from clawmark.webproxy.archive import DEFAULT_MATCH_HEADERS
from clawmark.settings import PROJECT_ROOT, settings

WebMode = Literal["live", "record", "replay", "replay-or-live"]
TASK_RULES_FILE = "web_rules.yaml"
# mitmproxy 11 pins h11<=0.14 and an older cryptography than clawmark's own venv carries, so
# mitmdump lives in its own venv (scripts/webproxy-up.sh); the addon needs nothing of clawmark.
DEFAULT_MITMDUMP = PROJECT_ROOT / ".venv-webproxy" / "bin" / "mitmdump"


class BlockRule(BaseModel):
    """Requests the proxy never forwards, in any mode: method in `methods` and `url` (a regex,
    searched in the full URL) matches."""

    model_config = ConfigDict(extra="forbid")  # a typo (`method:`) must not silently mean POST

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    methods: list[str] = Field(default_factory=lambda: ["POST"], min_length=1,
                               description="HTTP methods, or ['*'] for every method.")
    url: str = Field(description="Python regex searched in the URL (scheme://host:port/path?query).")

    @field_validator("url")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regex ({exc})") from None
        return value


# A sweep's starting point: the endpoints of irreversible actions that UniClawBench prose forbids.
IRREVERSIBLE_RULES = [
    BlockRule(id="checkout", methods=["POST", "PUT", "PATCH"], url=r"(?i)/(checkout|cart/submit|place[-_]?order|purchase|buy)\b"),
    BlockRule(id="booking", methods=["POST", "PUT", "PATCH"], url=r"(?i)/(book|booking|bookings|reserve|reservation)s?\b"),
    BlockRule(id="payment", methods=["POST", "PUT", "PATCH"], url=r"(?i)/(pay|payment|payments|charge|billing)\b"),
    BlockRule(id="send", methods=["POST", "PUT"], url=r"(?i)/(send|sendmail|messages/send|mail/send|submit)\b"),
]


class WebProxyConfig(BaseModel):
    """The web of one attempt (per sweep; a task adds its own rules in `web_rules.yaml`)."""

    mode: WebMode = Field("live", description="live: forward (rules apply); record: forward and save every "
                          "exchange to the task's archive; replay: serve only from the archive, a 502 naming "
                          "the miss otherwise; replay-or-live: misses go live (counted).")
    archive_root: Path | None = Field(None, description="Per-task archives live in <root>/<task_id>/ "
                                      "(default: $CLAWMARK_HOME/web_archives).")
    block: list[BlockRule] = Field(default_factory=list, description="Sweep-wide block rules.")
    passthrough_hosts: list[str] = Field(
        default_factory=lambda: sorted(_registry_hosts()), description="Hosts forwarded live and untouched in "
        "every mode (no TLS interception, not recorded, not counted): the package registries, which are "
        "tools of the container, not the task's web. Block rules still see their plain-HTTP requests.")
    match_headers: list[str] = Field(
        default_factory=lambda: list(DEFAULT_MATCH_HEADERS), description="Request headers that select content, "
        "recorded with each exchange; replay answers a request only from recordings whose values it shares "
        "(besides method, URL, body and cookies).")
    match_cookies: bool = Field(True, description="Record each request's cookies, so replay answers only a "
                                "request with the same cookies; false for a site whose cookies vary by run.")
    upstream_ca: Path | None = Field(None, description="CA bundle (PEM) the proxy trusts for origins "
                                     "INSTEAD of its default (certifi) one: for a private site.")
    mitmdump: str | None = Field(None, description="mitmdump executable ($CLAWMARK_MITMDUMP, .venv-webproxy, PATH).")
    confdir: Path | None = Field(None, description="mitmproxy's CA folder (default: $CLAWMARK_HOME/webproxy-ca).")
    start_timeout_s: float = Field(30, gt=0)

    def archive_dir(self, task_id: str) -> Path:
        return (self.archive_root or settings().home / "web_archives") / task_id

    def ca_dir(self) -> Path:
        return self.confdir or settings().home / "webproxy-ca"

    def mitmdump_path(self) -> str:
        for candidate in (self.mitmdump, settings().mitmdump, str(DEFAULT_MITMDUMP),
                          shutil.which("mitmdump")):
            if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
                return candidate
        raise FileNotFoundError("mitmdump not found: run `bash scripts/webproxy-up.sh` (mitmproxy 11.0.2 in "
                                ".venv-webproxy) or set CLAWMARK_MITMDUMP")


def _registry_hosts() -> frozenset[str]:
    return REGISTRY_HOSTS


def load_rules(path: Path) -> list[BlockRule]:
    """`block: [{id, methods, url}, ...]` from a YAML file; a bad entry is a one-line CatalogError."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict) or not isinstance(data.get("block", []), list):
        raise CatalogError(Path(path), "block", "a list of {id, methods, url} rules")
    rules = []
    for index, raw in enumerate(data.get("block", [])):
        try:
            rules.append(BlockRule.model_validate(raw))
        except ValidationError as exc:
            raise from_validation(path, exc, prefix=f"block.{index}.") from None
    return rules


def task_rules(task) -> list[BlockRule]:
    """The task's own rules (`web_rules.yaml` in its package; never copied into the container)."""
    path = Path(task.package_dir) / TASK_RULES_FILE
    return load_rules(path) if path.is_file() else []
