"""What a pool worker checks before it runs a cell: that its code is the sweep's.

The `cell` deployment names the code it was made from (`code_digest` of the coordinator's
checkout) in its pull step, `same_code`. A worker runs the clawmark it has installed (a checkout
anywhere, or the worker image's /opt/clawmark) and the step refuses the run when that code
differs, naming both, so a pool never mixes rows of two versions of the pipeline.
"""

from __future__ import annotations

import logging
import os

from clawmark.runtime.shipped_code import code_digest
from clawmark.settings import PROJECT_ROOT

RUN_LOGGER = "prefect.flow_runs"  # a logger name Prefect sends to the server's run logs


class WorkerCodeDiffers(RuntimeError):
    """The worker's clawmark is not the code the sweep was started with."""


def same_code(digest: str, started_from: str) -> dict[str, str]:
    """Prefect pull step: enter this worker's project root if its code is `digest`, else refuse.
    `started_from`: the coordinator's checkout, named in the refusal."""
    here = code_digest(PROJECT_ROOT)
    if here != digest:
        refusal = WorkerCodeDiffers(
            f"this worker runs clawmark code {here} from {PROJECT_ROOT}, but the sweep was started from code "
            f"{digest} at {started_from}: update this worker (rebuild its image with `clawmark images worker`, "
            f"or check out the same commit) and start it again")
        # Into the run's own logs on the server (the coordinator names it as the run's cause): Prefect
        # ends the run "Process exited with status code: 1" and prints the traceback on the worker only.
        # The worker sets PREFECT__FLOW_RUN_ID for the process that runs the pull steps.
        run_id = os.environ.get("PREFECT__FLOW_RUN_ID")
        logging.getLogger(RUN_LOGGER).error("%s", refusal, extra={"flow_run_id": run_id})
        raise refusal
    os.chdir(PROJECT_ROOT)
    return {"directory": str(PROJECT_ROOT), "code": here}
