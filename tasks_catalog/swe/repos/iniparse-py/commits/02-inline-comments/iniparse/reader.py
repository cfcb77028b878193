"""Parse INI text into a dict of sections, each a dict of key -> value strings."""

COMMENT_PREFIXES = (";", "#")
DEFAULT_SECTION = "DEFAULT"


class IniError(ValueError):
    """The text is not valid INI; the message names the line number."""


def parse(text):
    sections = {DEFAULT_SECTION: {}}
    current = sections[DEFAULT_SECTION]
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(COMMENT_PREFIXES):
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise IniError(f"line {number}: unclosed section header {line!r}")
            current = sections.setdefault(line[1:-1].strip(), {})
            continue
        if "=" not in line:
            raise IniError(f"line {number}: expected 'key = value', got {line!r}")
        key, _, value = line.partition("=")
        current[key.strip().lower()] = _clean_value(value)
    return sections


def _clean_value(value):
    """Drop an inline comment, then surrounding quotes."""
    for prefix in COMMENT_PREFIXES:
        value = value.split(prefix, 1)[0]
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value
