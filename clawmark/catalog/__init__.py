"""Task catalog: closed-loop task packages, SWE-bench instances and suites, with clear errors."""

from __future__ import annotations

from clawmark.catalog.errors import CatalogError, PathEscapeError, RubricNotFound, UnknownTask
from clawmark.catalog.swe import SweInstance, load_id_list, load_instances, load_languages

__all__ = [
    "CatalogError", "PathEscapeError", "RubricNotFound", "UnknownTask",
    "SweInstance", "load_id_list", "load_instances", "load_languages",
]
