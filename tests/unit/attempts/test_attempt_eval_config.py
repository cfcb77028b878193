"""What of a patch attempt's protocol reaches the evaluator: its timeout, network and memory; an
unset memory keeps the evaluator's own default."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from clawmark.attempts.grading import _eval_config
from clawmark.attempts.patch import PatchAttemptConfig
from clawmark.swe.evaluate import EvalConfig


def test_the_protocol_sets_the_evaluators_limits():
    chosen = _eval_config(PatchAttemptConfig(eval_timeout_s=600, eval_network="none", eval_memory_mb=256))
    assert (chosen.timeout_s, chosen.network, chosen.memory_mb) == (600, "none", 256)
    assert _eval_config(PatchAttemptConfig()).memory_mb == EvalConfig().memory_mb


def test_a_memory_that_is_not_positive_is_refused():
    with pytest.raises(ValidationError, match="eval_memory_mb"):
        PatchAttemptConfig(eval_memory_mb=0)
