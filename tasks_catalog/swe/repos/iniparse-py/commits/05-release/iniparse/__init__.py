"""A tiny, dependency-free INI reader."""

from iniparse.reader import IniError, parse
from iniparse.typed import get_bool, get_int

__all__ = ["IniError", "get_bool", "get_int", "parse"]
__version__ = "0.2.0"
