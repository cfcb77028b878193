"""A scripted model server of the test's own, named by CLAWMARK_SCRIPTED_URL while it runs.

The process-wide one (clawmark.gateway.scripted) is what most tests share. The judge's gateway
tests took theirs from it when CI's unit run lost ~80 min in them: every call went unanswered
until its timeout, while the judge tests with a recorder of their own passed in the same run.
The cause was not found (never seen outside CI; run-tests.sh now dumps every thread on a unit
test's timeout). With their own server they no longer share that fate."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def own_scripted_model() -> Iterator[str]:
    """Its base URL (…/v1) while the block runs; the variable is put back after it."""
    from clawmark.gateway.scripted import create_scripted_app
    from clawmark.gateway.serving import BackgroundServer

    server = BackgroundServer(create_scripted_app(), "127.0.0.1", 0).start()
    saved = os.environ.get("CLAWMARK_SCRIPTED_URL")
    os.environ["CLAWMARK_SCRIPTED_URL"] = url = f"http://127.0.0.1:{server.port}/v1"
    try:
        yield url
    finally:
        if saved is None:
            os.environ.pop("CLAWMARK_SCRIPTED_URL", None)
        else:
            os.environ["CLAWMARK_SCRIPTED_URL"] = saved
        server.stop()
