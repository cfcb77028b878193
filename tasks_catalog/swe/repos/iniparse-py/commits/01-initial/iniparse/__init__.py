"""A tiny, dependency-free INI reader."""

from iniparse.reader import IniError, parse

__all__ = ["IniError", "parse"]
__version__ = "0.1.0"
