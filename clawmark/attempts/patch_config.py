"""The fixed protocol of a patch attempt: the common part (clawmark/attempts/base.py) and what
only the patch track has (who the claw runs as in the instance container, the evaluator)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from clawmark.attempts.base import AttemptConfig


class PatchAttemptConfig(AttemptConfig):
    """The fixed protocol of a patch attempt; saved as config.json with every result."""

    executor_user: str | None = Field(
        None, pattern=r"^\d+(:\d+)?$",
        description="uid[:gid] the claw runs as in the instance container (/testbed is handed to it); "
                    "unset = the image's user (root), as SWE-bench's harness runs agents. A claw whose "
                    "own container settings name a user keeps it.")
    eval_timeout_s: float = Field(1800.0, description="Limit of the test run in the evaluator.")
    eval_memory_mb: int | None = Field(None, gt=0, description="Memory of the evaluation container (MB); "
                                       "unset = the evaluator's default (8192). Tests that exhaust it fail "
                                       "as tests_oom, a measured failure.")
    eval_network: Literal["default", "none"] = Field(
        "default", description="Evaluator network: default = Docker's bridge, as swebench; none = hermetic.")
