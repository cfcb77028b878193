"""Invariant 5 for real: a patch sweep with every installable claw × two scripted models, where the
claw is the only thing that changes between cells of the same task and model — same prompt,
budgets, image base, extraction and evaluator — asserted from each cell's saved config.json and
prompt. The claws get a two-second budget: this is about the protocol around them (the
conformance kit checks what each claw does), so each is cut by the host deadline quickly."""

from __future__ import annotations

import json

import pytest

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

CLAWS = ["reference", "mini-swe-agent", "nanobot", "hermes", "genericagent", "openclaw", "edict-3role"]
MODELS = ["scripted/ref-{task_id}", "scripted/quick-{task_id}"]


def test_the_claw_is_the_only_column_that_changes(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    spec = {"sweep_id": "fixed", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": CLAWS, "models": MODELS, "max_parallel": 2,
            "attempt": {"budgets": {"seconds": 2, "steps": 3}, "deadline_grace_s": 3, "stop_grace_s": 20}}
    results = tmp_path / "results"
    assert sweep(spec=spec, results_dir=str(results))["ran"] == len(CLAWS) * len(MODELS)
    store = ResultStore(results)
    rows = store.read("fixed")
    assert sorted(rows["claw"].unique()) == sorted(CLAWS) and rows["claw_version"].notna().all()
    for model, group in rows.groupby("model"):
        configs = {claw: json.loads((store.layout("fixed", key).config).read_text())
                   for claw, key in zip(group["claw"], group["cell_key"])}
        protocols = {json.dumps(c["protocol"], sort_keys=True) for c in configs.values()}
        assert len(protocols) == 1, f"{model}: the protocol differs between claws"
        assert {c["instance_id"] for c in configs.values()} == {"clawmark-fixtures__iniparse-py-1"}
        assert len({json.dumps(c["claw"], sort_keys=True) for c in configs.values()}) == len(CLAWS)
        prompts = {(store.layout("fixed", key).transcript / "prompt.txt").read_text() for key in group["cell_key"]}
        assert len(prompts) == 1, f"{model}: claws were given different prompts"
        # network_policy is left out: it is the evaluator's, null when no patch was evaluated
        fixed = group[["task_id", "task_hash", "model", "model_params_hash", "seed",
                       "protocol_version"]].astype(str).drop_duplicates()
        assert len(fixed) == 1, fixed
