"""The nightly deployment's flow for real: a planted regression fails the flow run with the evidence
attached as a Prefect artifact; two equal nights pass."""

from __future__ import annotations

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASKS = ["clawmark-fixtures__bytesize-rs-1", "clawmark-fixtures__csvsplit-js-1", "clawmark-fixtures__envfile-go-1",
         "clawmark-fixtures__iniparse-py-1", "clawmark-fixtures__logday-go-1"]


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "nightly.yaml"
    path.write_text(yaml.safe_dump({"sweep_id": "nb", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
                                    "tasks": TASKS, "claws": ["nop"], "models": ["scripted/demo"]}))
    return str(path)


def _plant_passes(store: ResultStore, sweep_id: str) -> None:
    """Rewrite a night's rows as if every cell had resolved: tonight's real rows then drop on all 5."""
    for key in store.read(sweep_id)["cell_key"]:
        row = store.read_row(sweep_id, key)
        store.write(type(row).model_validate({**row.model_dump(), "status": "resolved", "passed": None,
                                              "resolved": None, "error_kind": None, "failure_reason": None}))


def _artifact(key: str) -> str:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    import anyio

    async def latest() -> str:
        async with get_client() as client:
            found = await client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[key])))
            return max(found, key=lambda artifact: artifact.created).data if found else ""  # the newest

    return anyio.run(latest)


def test_planted_regression_fails_the_run_and_equal_nights_pass(docker_client, prefect_harness, spec_file, tmp_path):
    from flows.nightly import nightly

    results = str(tmp_path / "results")
    nightly(spec_file=spec_file, results_dir=results, date="20261201")
    steady = nightly(spec_file=spec_file, results_dir=results, date="20261202")
    assert steady["baseline"] == "nb-20261201" and steady["regressions"] == []
    assert "No configuration" not in _artifact("nightly-nb") and "| nop | scripted/demo | 5 |" in _artifact("nightly-nb")

    _plant_passes(ResultStore(results), "nb-20261202")
    state = nightly(spec_file=spec_file, results_dir=results, date="20261203", return_state=True)
    assert state.is_failed()
    with pytest.raises(Exception, match="significant drop vs nb-20261202"):
        state.result()
    evidence = _artifact("nightly-nb")
    assert "sign test" in evidence and evidence.count("pass → fail") == 5
