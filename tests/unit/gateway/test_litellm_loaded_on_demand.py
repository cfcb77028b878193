"""litellm takes seconds to import, and a pool's cell run is a fresh process: the pipeline's entry
points load it only for a call that goes through it, never on import."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO


def _loaded_after(statement: str) -> set[str]:
    probe = f"import sys; {statement}; print(' '.join(m for m in ('litellm', 'openai') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(done.stdout.split())


def test_a_cell_run_and_the_sweep_flow_import_without_litellm():
    assert _loaded_after("import flows.cell, flows.sweep, clawmark.sweeps.shared_gateway") == set()


def test_a_litellm_error_is_still_typed_once_litellm_is_loaded():
    statement = ("from clawmark.gateway.upstream import litellm_module, to_model_error; "
                 "from clawmark.gateway.errors import RateLimited; "
                 "e = litellm_module().RateLimitError('slow down', llm_provider='openai', model='m'); "
                 "assert isinstance(to_model_error(e), RateLimited)")
    assert "litellm" in _loaded_after(statement)
