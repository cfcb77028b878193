"""Pre-release precedence, SemVer 2.0.0 section 11.

A version without a pre-release ranks above any pre-release of the same core version.
Identifiers compare left to right: numeric ones numerically, others in ASCII order, and a
numeric identifier ranks below a non-numeric one; a longer list wins when all shared
identifiers are equal.
"""


def prerelease_key(prerelease):
    """A sort key for the pre-release part ("" for a release)."""
    if not prerelease:
        return (1, ())
    return (0, tuple(_identifier_key(part) for part in prerelease.split(".")))


def _identifier_key(identifier):
    if identifier.isdigit():
        return (0, int(identifier), "")
    return (1, 0, identifier)
