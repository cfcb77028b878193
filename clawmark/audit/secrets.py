"""The secret values an audit looks for: the provider keys in the environment and the values of
every `.privacy` variable of the sweep's tasks, matched as exact bytes and in every encoded form
of `clawmark.audit.encodings`, and shown only masked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from clawmark.audit.encodings import DESCRIBED, JOINED, encoded_forms, joined

# litellm's provider variables end this way (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ...).
PROVIDER_KEY_NAME = re.compile(r"(API_KEY|API_TOKEN|AUTH_TOKEN|SECRET_KEY|SECRET_ACCESS_KEY|ACCESS_KEY_ID|_SECRET)$")
# Shorter values ("1", "true", "admin") match ordinary text and say nothing. At 8 characters the
# shortest encoded form (base64 at an offset, both ends cut) is still 10 characters, 60 bits, that
# random base64 or hex (a screenshot in a transcript) holds by chance about once in 10**18 places.
MIN_SECRET_CHARS = 8


@dataclass(frozen=True)
class Secret:
    name: str      # where it came from: OPENAI_API_KEY, .privacy HIDDEN_TOKEN, gateway token a1
    value: str

    def masked(self) -> str:
        shown = 4 if len(self.value) >= 16 else 1  # never half of a short .privacy value
        return f"{self.value[:shown]}… ({len(self.value)} chars)"


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


@dataclass(frozen=True)
class SecretFound:
    secret: Secret
    encoding: str  # a key of encodings.DESCRIBED: "exact", "base64", "hex", ...

    def describe(self) -> str:
        """`secret NAME sk-f… (32 chars)`, then how it was encoded, if it was."""
        how = DESCRIBED[self.encoding]
        return f"secret {self.secret.name} {self.secret.masked()}" + (f", {how}" if how else "")


class SecretScan:
    """Every form of every secret, searched for in one byte string or a stream of chunks."""

    def __init__(self, secrets: Iterable[Secret]):
        self.plain: list[tuple[bytes, SecretFound]] = []
        self.wrapped: list[tuple[bytes, SecretFound]] = []  # matched in the joined text
        for secret in (s for s in secrets if len(s.value) >= MIN_SECRET_CHARS):  # given ones too (tokens)
            for needle, encoding in encoded_forms(secret.value).items():
                (self.wrapped if encoding in JOINED else self.plain).append((needle, SecretFound(secret, encoding)))
        # A joined needle spans more raw bytes than its length: up to 4 per line break ("\\r\\n"),
        # so twice the longest needle keeps a match across chunks for lines of 4+ characters.
        self.overlap = 2 * max((len(n) for n, _ in self.plain + self.wrapped), default=0)

    def found_in(self, data: bytes) -> set[SecretFound]:
        found = {hit for needle, hit in self.plain if needle in data}
        if self.wrapped:
            flat = joined(data)
            found |= {hit for needle, hit in self.wrapped if needle in flat}
        return found

    def found_in_stream(self, chunks: Iterable[bytes]) -> list[SecretFound]:
        """Each chunk is searched with the stream's last `overlap` bytes before it, so a match
        across a chunk boundary is not lost; memory stays one chunk plus the overlap."""
        found: set[SecretFound] = set()
        tail = b""
        for chunk in chunks:
            window = tail + chunk
            found |= self.found_in(window)
            tail = window[-self.overlap:] if self.overlap else b""
        return sorted(found, key=lambda f: (f.secret.name, f.encoding))
