"""Provider faults injected into real sweeps (Prefect, Docker, the gateway, the `bare` claw): a
fake provider on loopback, reached through the gateway's litellm path (`hosted_vllm/<name>` with
an api_base), refuses with 429 + Retry-After until the other provider's cells are done, or never
answers. Rows are compared before and after: nothing lost, nothing duplicated, errors typed."""

from __future__ import annotations

import math

import pytest
import yaml

from clawmark.gateway.ledger import read_ledger
from clawmark.results import ResultStore
from tests.support.fake_upstream import FakeUpstream, UpstreamThread
from tests.support.fault_sweeps import assert_kept, rows, set_limits, spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PRICE = {"input": 1.0, "output": 2.0}  # USD per Mtok of the fake provider's models
ONE_CALL_USD = (1000 * 1.0 + 20 * 2.0) / 1e6  # the fake's usage: 1000 prompt, 20 completion tokens


def _attempt_config(upstream: FakeUpstream) -> dict:
    return {"model_params": {"api_base": upstream.base_url}, "fallback_price": PRICE}


def test_a_429_storm_is_waited_out_while_the_other_provider_goes_on(
        docker_client, prefect_harness, tmp_path, monkeypatch):
    store = ResultStore(tmp_path / "results")

    def scripted_rows_pending() -> bool:  # the provider recovers once the other provider's cells are in
        frame = store.read("storm", columns=["model"])
        return frame.empty or sum(str(m).startswith("scripted/") for m in frame["model"]) < 2

    monkeypatch.setenv("CLAWMARK_GATEWAY_MAX_RETRIES", "200")  # outlast the storm
    monkeypatch.setenv("CLAWMARK_GATEWAY_BACKOFF_BASE_S", "0.2")
    monkeypatch.setenv("CLAWMARK_GATEWAY_BACKOFF_MAX_S", "3")
    # The operator gives the limited provider one model slot; the engine has room for three cells.
    set_limits(**{"clawmark-docker-local": 3, "clawmark-model-hosted-vllm": 1, "clawmark-model-scripted": 3})
    from flows.sweep import sweep

    with UpstreamThread(FakeUpstream(retry_after_s=1.0, refuse_while=scripted_rows_pending)) as upstream:
        result = sweep(spec=spec("storm", ["bare"], ["hosted_vllm/limited", "scripted/bare-{task_id}"],
                                 seeds=[0, 1], max_parallel=3, attempt=_attempt_config(upstream)),
                       results_dir=str(store.root))
    after = rows(store, "storm")
    assert (result["cells"], result["ran"], len(after)) == (4, 4, 4)
    by_model: dict[str, list[dict]] = {}
    for row in after.values():
        by_model.setdefault(row["model"], []).append(row)
    assert sorted(r["status"] for r in by_model["scripted/bare-{task_id}"]) == ["resolved", "resolved"]
    limited = by_model["hosted_vllm/limited"]
    assert sorted(r["status"] for r in limited) == ["empty_patch", "empty_patch"], [r["error_message"] for r in limited]

    # The provider refused until both scripted cells had committed: they went on meanwhile.
    first_ok = upstream.arrivals[upstream.statuses.index(200)]
    assert upstream.refused() >= 1
    assert all(r["finished_at"].timestamp() < first_ok for r in by_model["scripted/bare-{task_id}"])
    # Retry-After honoured: no request came sooner than the 1 s the provider asked for.
    gaps = [b - a for a, b, code in zip(upstream.arrivals, upstream.arrivals[1:], upstream.statuses) if code == 429]
    assert gaps and min(gaps) >= 0.99, gaps

    # One ledger line per logical call; the refused tries are retries of it, charged nothing.
    ledgers = [read_ledger(store.layout("storm", r["cell_key"]).ledger) for r in limited]
    assert sorted(len(lines) for lines in ledgers) == [1, 1]
    assert sorted(lines[0].retries for lines in ledgers) == [0, upstream.refused()]
    assert all(lines[0].status == "ok" for lines in ledgers)
    assert [round(r["cost_usd"], 9) for r in limited] == [round(ONE_CALL_USD, 9)] * 2


def test_a_hung_provider_times_out_typed_and_the_rerun_finishes_the_cell(
        docker_client, prefect_harness, tmp_path, monkeypatch):
    from flows.rerun_failed import rerun_failed
    from flows.sweep import sweep

    monkeypatch.setenv("CLAWMARK_GATEWAY_TIMEOUT_S", "2")
    monkeypatch.setenv("CLAWMARK_GATEWAY_MAX_RETRIES", "1")
    monkeypatch.setenv("CLAWMARK_GATEWAY_BACKOFF_BASE_S", "0.1")
    set_limits(**{"clawmark-docker-local": 2, "clawmark-model-hosted-vllm": 2})
    store = ResultStore(tmp_path / "results")
    with UpstreamThread(FakeUpstream(hang=True)) as upstream:
        sweep_file = tmp_path / "hang.yaml"
        sweep_file.write_text(yaml.safe_dump(spec("hang", ["bare", "nop"], ["hosted_vllm/stuck"],
                                                  attempt=_attempt_config(upstream))))
        sweep(spec_file=str(sweep_file), results_dir=str(store.root))
        before = rows(store, "hang")
        by_claw = {r["claw"]: r for r in before.values()}
        hung = by_claw["bare"]
        assert (hung["status"], hung["error_kind"]) == ("infra_error", "infra"), hung["error_message"]
        assert "upstream_unavailable" in hung["error_message"] and "Timeout" in hung["error_message"]
        (line,) = read_ledger(store.layout("hang", hung["cell_key"]).ledger)
        assert (line.status, line.retries, line.output_tokens) == ("upstream_unavailable", 1, 0)
        assert len(upstream.arrivals) == 2  # the try and its one retry, each cut at 2 s
        assert by_claw["nop"]["status"] == "empty_patch"

        upstream.hang = False  # the provider is back
        result = rerun_failed(spec_file=str(sweep_file), results_dir=str(store.root))
    after = rows(store, "hang")
    assert result["rerun"] == 1
    assert_kept(before, after, rerun={hung["cell_key"]})
    assert after[hung["cell_key"]]["status"] == "empty_patch"
    assert not math.isnan(after[hung["cell_key"]]["cost_usd"])
