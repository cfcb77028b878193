"""The secret values an audit looks for: the provider keys in the environment and the values of
every `.privacy` variable of the sweep's tasks. Values are matched as exact bytes and shown
only masked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# litellm's provider variables end this way (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ...).
PROVIDER_KEY_NAME = re.compile(r"(API_KEY|API_TOKEN|AUTH_TOKEN|SECRET_KEY|SECRET_ACCESS_KEY|ACCESS_KEY_ID|_SECRET)$")
MIN_SECRET_CHARS = 8  # shorter values ("1", "true") would match everywhere and say nothing


@dataclass(frozen=True)
class Secret:
    name: str      # where it came from: OPENAI_API_KEY, .privacy HIDDEN_TOKEN, gateway token a1
    value: str

    def masked(self) -> str:
        return f"{self.value[:4]}… ({len(self.value)} chars)"


def environment_secrets(environ: Mapping[str, str], privacy_names: Iterable[str] = ()) -> list[Secret]:
    """Provider keys (by name pattern) and the named `.privacy` variables that are set."""
    privacy = set(privacy_names)
    found = {}
    for name, value in environ.items():
        if len(value) < MIN_SECRET_CHARS:
            continue
        if name in privacy:
            found[value] = Secret(f".privacy {name}", value)
        elif PROVIDER_KEY_NAME.search(name):
            found.setdefault(value, Secret(name, value))
    return sorted(found.values(), key=lambda s: s.name)


def secrets_in(data: bytes, secrets: list[Secret]) -> list[Secret]:
    return [s for s in secrets if s.value.encode() in data]
