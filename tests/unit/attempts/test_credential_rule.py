"""One credential rule for both tracks (issue 16 item 7): the closed-loop attempt config refuses
a key in `model_params` or `claw_settings` as the patch one does, and a closed-loop sweep file
carrying one is refused by `clawmark sweep` before anything runs (no store, no pinned config)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.patch import PatchAttemptConfig
from clawmark.catalog import CatalogError
from clawmark.cli.main import app
from clawmark.sweeps import load_spec

KEY = "sk-" + "q" * 30
CLOSED_LOOP_SWEEP = ("sweep_id: cl\ninstances: null\nclaws: [reference]\nmodels: [scripted/demo]\n"
                     "closed_loop:\n  tasks: [en_101_sales_total]\n"
                     f"  attempt:\n    model_params: {{temperature: 0, api_key: {KEY}}}\n")


@pytest.mark.parametrize("config", [ClosedLoopAttemptConfig, PatchAttemptConfig])
@pytest.mark.parametrize("field", ["model_params", "claw_settings"])
def test_both_tracks_refuse_a_key_without_echoing_it(config, field):
    with pytest.raises(ValueError) as refused:
        config(**{field: {"nested": {"api_key": KEY}}})
    assert "nested.api_key looks like one" in str(refused.value) and KEY not in str(refused.value)


def test_both_tracks_accept_plain_parameters():
    params = {"temperature": 0.2, "max_tokens": 512, "api_base": "http://h/v1"}
    assert ClosedLoopAttemptConfig(model_params=params).model_params == PatchAttemptConfig(model_params=params).model_params


def test_a_closed_loop_sweep_file_with_a_key_names_the_file_and_field(tmp_path):
    path = tmp_path / "cl.yaml"
    path.write_text(CLOSED_LOOP_SWEEP)
    with pytest.raises(CatalogError) as refused:
        load_spec(path)
    assert str(refused.value).startswith(f"{path}: closed_loop.attempt.model_params: expected no credentials "
                                         "(api_key looks like one)")
    assert KEY not in str(refused.value)


def test_clawmark_sweep_refuses_it_before_anything_runs(tmp_path):
    path, results = tmp_path / "cl.yaml", tmp_path / "results"
    path.write_text(CLOSED_LOOP_SWEEP)
    done = CliRunner().invoke(app, ["sweep", str(path), "--results", str(results)])
    assert done.exit_code == 2
    assert "closed_loop.attempt.model_params: expected no credentials" in done.output and KEY not in done.output
    assert not results.exists()  # nothing pinned, no row, no artifact folder
