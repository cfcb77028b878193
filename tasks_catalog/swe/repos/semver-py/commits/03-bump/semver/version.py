"""The Version value type."""

import re
from dataclasses import dataclass, field
from functools import total_ordering

_PATTERN = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


class InvalidVersion(ValueError):
    """The text is not a semantic version."""


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: str = ""
    build: str = field(default="", compare=False)  # ignored for precedence and equality

    @classmethod
    def parse(cls, text):
        match = _PATTERN.match(text.strip())
        if not match:
            raise InvalidVersion(f"not a semantic version: {text!r}")
        major, minor, patch, pre, build = match.groups()
        return cls(int(major), int(minor), int(patch), pre or "", build or "")

    def __str__(self):
        core = f"{self.major}.{self.minor}.{self.patch}"
        text = f"{core}-{self.prerelease}" if self.prerelease else core
        return f"{text}+{self.build}" if self.build else text

    def bump(self, part):
        """The next version: part is "major", "minor" or "patch"; drops pre-release and build."""
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, 0)
        if part == "patch":
            return Version(self.major, self.minor, self.patch + 1)
        raise ValueError(f"part must be major, minor or patch, got {part!r}")

    def _key(self):
        return (self.major, self.minor, self.patch, self.prerelease)

    def __lt__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()
