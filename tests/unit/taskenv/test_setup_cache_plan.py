"""Which set-ups may be captured once and reused, and why not when not (the row's `setup_cache`):
decided from the task alone, before any engine is asked."""

from __future__ import annotations

import pytest

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnvConfig
from clawmark.taskenv.setup_cache import plan_setup

from tests.support.taskenv_fixtures import make_package

INSTALL = {"services/install/install.sh": "mkdir -p /opt/tool && echo ok > /opt/tool/ready\n"}
ONESHOT = [{"name": "install", "start": "bash install.sh", "oneshot": True}]


def _plan(tmp_path, files=None, on_layout=(), config=None, **spec):
    task = load_task(make_package(tmp_path, "task_cache_plan", {**INSTALL, **(files or {})}, **spec))
    config = (config or TaskEnvConfig(cache_setup=True)).for_task(task)
    return plan_setup(task, config, hooks=(), on_layout=on_layout, base_image="no-engine-asked:never")


@pytest.mark.parametrize("script, where", [
    ('echo "built $(date +%F)" > /opt/tool/stamp\n', "services/install/install.sh"),
    ("python3 -c 'import datetime; print(datetime.date.today())' > stamp\n", "services/install/install.sh"),
    ("node -e 'console.log(new Date())' > stamp\n", "services/install/install.sh"),
])
def test_a_setup_that_reads_today_is_not_cached_and_the_row_names_the_file(tmp_path, script, where):
    plan = _plan(tmp_path, {"services/install/install.sh": script}, services=ONESHOT)
    assert plan.key is None
    assert plan.off == f"its set-up reads today's date ({where})"


def test_a_start_command_that_reads_today_is_named_too(tmp_path):
    plan = _plan(tmp_path, services=[{"name": "install", "start": "bash install.sh `date +%s`", "oneshot": True}])
    assert plan.off == "its set-up reads today's date (services[install].start)"


@pytest.mark.parametrize("spec, files, on_layout, credentials, why", [
    ({"setup_cache": False}, {}, (), {}, "the task opts out (setup_cache: false)"),
    ({}, {}, (print,), {}, "web proxy (its CA and archive are the attempt's)"),
    ({"executor_credentials": True}, {}, (), {"TOKEN": "s3cret"}, ".privacy values reach the set-up"),
])
def test_each_reason_a_setup_is_not_cached(tmp_path, spec, files, on_layout, credentials, why):
    config = TaskEnvConfig(cache_setup=True, credentials=credentials)
    plan = _plan(tmp_path, files, on_layout=on_layout, config=config, services=ONESHOT, **spec)
    assert (plan.key, plan.off) == (None, why)


def test_only_oneshot_services_before_the_first_background_one_are_cached(tmp_path):
    background_first = [{"name": "web", "start": "python3 -m http.server 8765"}, *ONESHOT]
    files = {"services/web/index.html": "hi\n"}
    assert _plan(tmp_path, files, services=background_first).off == "no oneshot set-up"


@pytest.fixture
def image_id(monkeypatch):
    """The base image's id, as the engine would give it (the only thing the key asks the engine)."""
    from clawmark.taskenv import setup_cache

    ids = {"no-engine-asked:never": "sha256:" + "a" * 64}
    monkeypatch.setattr(setup_cache, "_image_id", ids.__getitem__)
    return ids


def test_a_date_in_a_background_service_does_not_stop_the_cache(tmp_path, image_id):
    """Only what is captured is scanned: a background service starts again in every attempt."""
    files = {"services/clock/run.sh": "while true; do date > /tmp/now; sleep 1; done\n"}
    services = [*ONESHOT, {"name": "clock", "start": "bash run.sh"}]
    plan = _plan(tmp_path, files, services=services)
    assert plan.off is None and len(plan.key) == 24
    assert plan.cached_services == ["install"]


def test_a_task_with_pre_exec_is_keyed_by_what_its_pre_exec_left(tmp_path, image_id):
    """pre_exec still runs on the host for every attempt; the key is taken over the attempt's copy
    after it, so a pre_exec that regenerates a source differently is another key."""
    def key(folder, generated):
        files = {"ops/make.sh": "true\n", "sources/generated.txt": generated}
        return _plan(tmp_path / folder, files, services=ONESHOT, pre_exec=["ops/make.sh"]).key

    assert key("a", "same\n") == key("b", "same\n") != key("c", "other\n")


def test_every_input_of_the_setup_rekeys_it(tmp_path, image_id, monkeypatch):
    """A changed service file, start command, base image, executor or network is another key; an
    unchanged task in another folder is the same one."""
    def key(folder, files=None, config=None, **spec):
        spec.setdefault("services", ONESHOT)
        return _plan(tmp_path / folder, files, config=config, **spec).key

    first = key("a")
    assert key("same") == first
    others = [
        key("file", {"services/install/install.sh": "mkdir -p /opt/tool && echo changed > /opt/tool/ready\n"}),
        key("start", services=[{"name": "install", "start": "bash install.sh --fast", "oneshot": True}]),
        key("user", config=TaskEnvConfig(cache_setup=True, executor_user="0:0")),
        key("net", config=TaskEnvConfig(cache_setup=True, network_policy="none")),
        key("source", {"sources/data.csv": "a,b\n"}),
    ]
    image_id["no-engine-asked:never"] = "sha256:" + "b" * 64
    others.append(key("image"))
    assert first not in others and len(set(others)) == len(others)


def test_an_upstream_task_the_overlay_reviewed_is_cached_though_its_setup_stamps_the_date(tmp_path, image_id,
                                                                                         monkeypatch):
    """The overlay's `setup_cache: true` (the date only stamps the set-up) lifts the date rule for
    that upstream task alone; `false` keeps it fresh with the overlay's reason. Neither enters the
    spec, so the task's content hash (its cell keys) stays as it was."""
    from clawmark.catalog import overlay

    task = load_task(make_package(tmp_path, "task_cache_plan", {
        "services/install/install.sh": 'echo "{\\"checked_at\\": \\"$(date -u +%FT%TZ)\\"}" > /opt/state.json\n'},
        services=ONESHOT))
    task = task.model_copy(update={"layout": "uniclaw"})
    config = TaskEnvConfig(cache_setup=True).for_task(task)
    before = task.content_hash()

    def planned(hint):
        hints = overlay.Overlay(tasks={} if hint is None else {"task_cache_plan": hint})
        monkeypatch.setattr(overlay, "load_overlay", lambda file=None: hints)
        return plan_setup(task, config, hooks=(), on_layout=(), base_image="no-engine-asked:never")

    assert planned(None).off == "its set-up reads today's date (services/install/install.sh)"
    reviewed = planned(overlay.TaskHint(setup_cache=True, why="the date only stamps its state file"))
    assert reviewed.off is None and reviewed.key
    fresh = planned(overlay.TaskHint(setup_cache=False, why="it seeds today's orders"))
    assert fresh.off == "the overlay says its set-up must be fresh (it seeds today's orders)"
    assert task.content_hash() == before
