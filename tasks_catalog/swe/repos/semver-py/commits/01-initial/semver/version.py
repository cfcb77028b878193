"""The Version value type."""

import re
from dataclasses import dataclass
from functools import total_ordering

_PATTERN = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$")


class InvalidVersion(ValueError):
    """The text is not a semantic version."""


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: str = ""

    @classmethod
    def parse(cls, text):
        match = _PATTERN.match(text.strip())
        if not match:
            raise InvalidVersion(f"not a semantic version: {text!r}")
        major, minor, patch, pre = match.groups()
        return cls(int(major), int(minor), int(patch), pre or "")

    def __str__(self):
        core = f"{self.major}.{self.minor}.{self.patch}"
        return f"{core}-{self.prerelease}" if self.prerelease else core

    def _key(self):
        return (self.major, self.minor, self.patch, self.prerelease)

    def __lt__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()
