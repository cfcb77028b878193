"""Semantic Versioning 2.0.0: parsing and precedence."""

from semver.version import InvalidVersion, Version

__all__ = ["InvalidVersion", "Version"]
