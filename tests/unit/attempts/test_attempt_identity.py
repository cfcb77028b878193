"""Cell identity covers the environment (issue 7 part 6): an edited image recipe (the instance's
own or its runtime image) or repository bundle re-keys its cells, so the planner schedules them
again while the old rows stay readable; moving a bundle does not; credentials never enter a
cell's config."""

from __future__ import annotations

import json
import shutil

import pytest

from clawmark.attempts.patch import PatchAttemptConfig, identity_fields
from clawmark.catalog import CatalogError, load_instances
from clawmark.claws import get_claw
from clawmark.results import AttemptRow, ResultStore
from clawmark.settings import IMAGES_DIR, TASKS_CATALOG
from clawmark.sweeps import SweepSpec, load_spec, plan_sweep

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"
INI = "clawmark-fixtures__iniparse-py-1"


@pytest.fixture
def catalog(tmp_path):
    """One bundled instance with its own image recipe folder and a copy of its bundle."""
    row = next(json.loads(line) for line in INSTANCES.read_text().splitlines() if INI in line)
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "Dockerfile").write_text("ARG PARENT\nFROM ${PARENT}\nRUN echo one\n")
    bundle = next(i for i in load_instances(INSTANCES) if i.instance_id == INI).repo_bundle
    shutil.copyfile(bundle, tmp_path / "repo.bundle")
    row.update(image_recipe="env", repo_bundle="repo.bundle")
    (tmp_path / "instances.jsonl").write_text(json.dumps(row) + "\n")
    return tmp_path


def _spec(catalog) -> SweepSpec:
    return SweepSpec(sweep_id="env1", instances=catalog / "instances.jsonl", claws=["nop", "oracle"],
                     models=["scripted/demo"], seeds=[0])


def _commit_all(store: ResultStore, spec: SweepSpec) -> None:
    for cell in plan_sweep(spec, store).pending:
        instance = load_instances(spec.instances)[0]
        fields = identity_fields(instance, get_claw(cell.claw), cell.model, cell.seed, spec.sweep_id, spec.attempt)
        store.write(AttemptRow(status="unresolved", **fields))


def test_an_edited_recipe_reschedules_its_cells_and_old_rows_stay_readable(catalog, tmp_path):
    store, spec = ResultStore(tmp_path / "results"), _spec(catalog)
    _commit_all(store, spec)
    before = plan_sweep(spec, store)
    assert before.pending == [] and len(before.done) == 2
    (catalog / "env" / "Dockerfile").write_text("ARG PARENT\nFROM ${PARENT}\nRUN echo two\n")
    after = plan_sweep(spec, store)
    assert len(after.pending) == 2 and after.done == set()
    assert {c.cell_key for c in after.cells}.isdisjoint(before.done)
    old = store.read(spec.sweep_id)
    assert sorted(old["cell_key"]) == sorted(before.done) and set(old["status"]) == {"unresolved"}


def test_a_changed_bundle_rekeys_and_a_moved_one_does_not(catalog, tmp_path):
    store, spec = ResultStore(tmp_path / "results"), _spec(catalog)
    keys = {c.cell_key for c in plan_sweep(spec, store).cells}
    (catalog / "moved").mkdir()
    shutil.move(catalog / "repo.bundle", catalog / "moved" / "repo.bundle")
    row = json.loads((catalog / "instances.jsonl").read_text()) | {"repo_bundle": "moved/repo.bundle"}
    (catalog / "instances.jsonl").write_text(json.dumps(row) + "\n")
    assert {c.cell_key for c in plan_sweep(spec, store).cells} == keys
    with (catalog / "moved" / "repo.bundle").open("ab") as bundle:
        bundle.write(b"\n")
    assert {c.cell_key for c in plan_sweep(spec, store).cells}.isdisjoint(keys)


def test_an_edited_runtime_image_recipe_rekeys(catalog, tmp_path, monkeypatch):
    images = tmp_path / "images"
    for name in ("base", "python"):
        shutil.copytree(IMAGES_DIR / name, images / name)
    monkeypatch.setenv("CLAWMARK_IMAGES_DIR", str(images))
    store, spec = ResultStore(tmp_path / "results"), _spec(catalog)
    keys = {c.cell_key for c in plan_sweep(spec, store).cells}
    with (images / "base" / "customize.sh").open("a") as script:
        script.write("\n# one more package\n")
    assert {c.cell_key for c in plan_sweep(spec, store).cells}.isdisjoint(keys)  # a parent of python changed


@pytest.mark.parametrize("params", [{"api_key": "x"}, {"extra_headers": {"Authorization": "Bearer abc"}},
                                    {"aws_session_token": "x"}, {"user": "sk-" + "a" * 30}])
def test_credentials_in_model_params_are_refused_without_echoing_them(params):
    with pytest.raises(ValueError) as refused:
        PatchAttemptConfig(model_params=params)
    assert "OPENAI_API_KEY" in str(refused.value) and "sk-aaaa" not in str(refused.value)
    assert "Bearer abc" not in str(refused.value)


def test_parameters_pass_and_claw_settings_are_checked_too():
    config = PatchAttemptConfig(model_params={"max_tokens": 512, "temperature": 0.2, "api_base": "http://h/v1"})
    assert config.model_params["max_tokens"] == 512
    with pytest.raises(ValueError, match="secret_token"):
        PatchAttemptConfig(claw_settings={"env": {"secret_token": "x"}})


def test_a_sweep_file_with_a_key_is_one_line_naming_the_field(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("sweep_id: s1\nclaws: [reference]\nmodels: [scripted/demo]\n"
                    "attempt:\n  model_params: {temperature: 0, api_key: sk-abcdefghijklmnopqrstuvwx}\n")
    with pytest.raises(CatalogError) as refused:
        load_spec(path)
    message = str(refused.value)
    assert message.startswith(f"{path}: attempt.model_params: expected no credentials (api_key looks like one)")
    assert "sk-abcdef" not in message and "\n" not in message


def test_an_edited_claw_image_recipe_rekeys_that_claws_cells_only(catalog, tmp_path, monkeypatch):
    images = tmp_path / "images"
    for name in ("base", "python", "claw-mini-swe-agent"):
        shutil.copytree(IMAGES_DIR / name, images / name)
    monkeypatch.setenv("CLAWMARK_IMAGES_DIR", str(images))
    spec = _spec(catalog).model_copy(update={"claws": ["mini-swe-agent", "nop"]})
    store = ResultStore(tmp_path / "results")
    before = {c.claw: c.cell_key for c in plan_sweep(spec, store).cells}
    with (images / "claw-mini-swe-agent" / "Dockerfile").open("a") as dockerfile:
        dockerfile.write("\n# pin another wheel\n")
    after = {c.claw: c.cell_key for c in plan_sweep(spec, store).cells}
    assert after["mini-swe-agent"] != before["mini-swe-agent"] and after["nop"] == before["nop"]
