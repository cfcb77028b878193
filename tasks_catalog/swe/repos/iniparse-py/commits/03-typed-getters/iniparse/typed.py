"""Typed access to parsed values: integers and booleans with INI-style spellings."""

from iniparse.reader import IniError

TRUE_WORDS = {"1", "yes", "true", "on"}
FALSE_WORDS = {"0", "no", "false", "off"}


def get_int(config, section, key, default=None):
    value = config.get(section, {}).get(key)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise IniError(f"[{section}] {key}: expected an integer, got {value!r}") from None


def get_bool(config, section, key, default=None):
    value = config.get(section, {}).get(key)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise IniError(f"[{section}] {key}: expected yes/no, true/false, on/off or 1/0, got {value!r}")
