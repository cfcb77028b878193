"""No cell starts while the Docker engine is away: it is awaited (an engine restart, not an
outage) up to CLAWMARK_ENGINE_WAIT_S, else the sweep stops instead of turning every next cell
into an infra row. Used before each cell of a local sweep and by each pool cell run."""

from __future__ import annotations

import logging

from clawmark.runtime.engine import EngineStayedDown, engine_answers, wait_for_engine
from clawmark.settings import settings

ENGINE_WAIT_S = settings().engine_wait_s  # read once: tests patch the attribute


def engine_back(logger: logging.Logger | logging.LoggerAdapter) -> bool:
    """True when the engine answers now or within ENGINE_WAIT_S."""
    if engine_answers():
        return True
    logger.warning("Docker engine not answering: no new cell starts until it is back (waiting up to %.0f s)",
                   ENGINE_WAIT_S)
    back = wait_for_engine(ENGINE_WAIT_S)
    logger.warning("Docker engine is back: scheduling again" if back else "Docker engine stayed down: stopping")
    return back


def engine_stayed_down(not_run: int) -> EngineStayedDown:
    return EngineStayedDown(ENGINE_WAIT_S, not_run)
