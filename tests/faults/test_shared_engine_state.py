"""State shared by attempts, processes and pool workers is made once on a fresh engine, whatever
races: a private dockerd (tests/faults/private_engine.py) holding only the demo's images, wiped
to them before each test. Eight threads in two processes (each its own CLAWMARK_HOME and TMPDIR)
ask for every piece at once; the demo sweep runs at four cells at a time; networks of one name
made by hand (as an older clawmark or another host could) are reconciled, or refused when both
are in use. A fresh engine once made two `clawmark-open` networks and failed 14 of 16 demo cells."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import yaml

from clawmark.settings import PROJECT_ROOT, TASKS_CATALOG
from tests.faults.private_engine import PrivateEngine, environ_for, image_chain
from tests.support.fault_sweeps import INSTANCE, rows, set_limits, spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NETWORKS = ("clawmark-isolated", "clawmark-open")


@pytest.fixture(scope="module")
def fresh_engine(docker_client, tmp_path_factory):
    """A private engine with the demo's images (and the demo instance's) and nothing else."""
    from clawmark.catalog import find_instances
    from clawmark.cli.doctor import DEMO_IMAGES
    from clawmark.runtime import host_firewall
    from clawmark.runtime.images import ensure_image
    from clawmark.swe.instance_image import instance_image

    (instance,) = find_instances(TASKS_CATALOG / "swe" / "instances.jsonl", [INSTANCE])
    tops = [ensure_image(name) for name in DEMO_IMAGES] + [instance_image(instance)]  # on the shared engine
    refs = sorted({ref for top in tops for ref in image_chain(docker_client, top)})
    # Its own bridge and address pool: the engine-restart fault's private engine may run beside it.
    engine = PrivateEngine(tmp_path_factory.mktemp("engine"), bridge="cmrace0", bridge_cidr="10.234.250.1/24",
                           address_pool="base=10.234.0.0/16,size=24")
    try:
        engine.start()
        engine.load_images(refs)
        engine.loaded = set(refs)
        yield engine
    finally:
        engine.close()
        host_firewall.reap_stale_chains()  # the chains of its bridges, gone with its networks


@pytest.fixture
def on_fresh_engine(fresh_engine, monkeypatch):
    """This test's clawmark talks to the private engine, wiped back to its loaded images."""
    from clawmark.runtime import host_firewall, registry_proxy
    from clawmark.runtime.engine import shared_client

    _wipe(fresh_engine)
    host_firewall.reap_stale_chains()
    monkeypatch.setenv("DOCKER_HOST", fresh_engine.host)
    monkeypatch.setenv("CLAWMARK_HOST_FIREWALL", "off")  # in this process; the race's workers guard for real
    monkeypatch.setattr(registry_proxy, "_started", None)  # a proxy of this process serves an earlier network
    shared_client.cache_clear()
    yield fresh_engine
    shared_client.cache_clear()


def _wipe(engine: PrivateEngine) -> None:
    engine.docker("rm", "-f", *engine.docker("ps", "-aq").stdout.split(), check=False)
    engine.docker("volume", "rm", "-f", *engine.docker("volume", "ls", "-q").stdout.split(), check=False)
    engine.docker("network", "rm", *engine.docker("network", "ls", "-q", "--filter", "type=custom").stdout.split(),
                  check=False)
    tags = engine.docker("images", "--format", "{{.Repository}}:{{.Tag}}").stdout.split()
    engine.docker("rmi", "-f", *[t for t in tags if t not in engine.loaded and t != "<none>:<none>"], check=False)


def _named(engine: PrivateEngine, kind: str, prefix: str) -> list[str]:
    names = engine.docker(kind, "ls", "--format", "{{.Name}}", "--filter", f"name={prefix}").stdout.split()
    return sorted(n for n in names if n.startswith(prefix))


def _events(engine: PrivateEngine, since: int, *filters: str) -> list[str]:
    argv = ["events", "--since", str(since), "--until", str(int(time.time()) + 1), "--format", "{{json .}}"]
    for item in filters:
        argv += ["--filter", item]
    return [json.loads(line) for line in engine.docker(*argv).stdout.splitlines()]


def _input_jumps(bridge: str) -> list[str]:
    listed = subprocess.run(["iptables", "-S", "INPUT"], capture_output=True, text=True, check=True).stdout
    return [line for line in listed.splitlines() if f"-i {bridge} " in line]


def test_eight_threads_in_two_processes_make_each_piece_of_shared_state_once(on_fresh_engine, tmp_path):
    from clawmark.claws.nanobot import IMAGE_NAME
    from clawmark.runtime import host_firewall
    from clawmark.runtime.engine import shared_client
    from clawmark.runtime.images import image_ref
    from clawmark.runtime.network import bridge_name

    engine, since, go = on_fresh_engine, int(time.time()) - 1, tmp_path / "go"
    workers = []
    for index in range(2):  # homes and temp dirs of their own: the locks must not live there
        env = {**environ_for(engine), "CLAWMARK_HOST_FIREWALL": "on", "CLAWMARK_HOME": str(tmp_path / f"home{index}"),
               "TMPDIR": str((tmp_path / f"tmp{index}").resolve()), "PYTHONPATH": str(PROJECT_ROOT)}
        (tmp_path / f"tmp{index}").mkdir()
        workers.append(subprocess.Popen([sys.executable, "-m", "tests.faults.engine_race_worker", str(go),
                                         image_ref("base")], env=env, cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True))
    assert [w.stdout.readline().strip() for w in workers] == ["ready", "ready"]
    go.touch()
    outcomes = []
    for worker in workers:
        out, err = worker.communicate(timeout=900)
        assert worker.returncode == 0, err[-2000:]
        outcomes.append(json.loads(out.strip().splitlines()[-1]))
    assert [o["errors"] for o in outcomes] == [[], []]
    got = [thread for outcome in outcomes for thread in outcome["results"]]
    assert len(got) == 8

    # One network of each name, each created once (no duplicate made and reconciled away).
    assert _named(engine, "network", "clawmark-") == sorted(NETWORKS)
    created = [e["Actor"]["Attributes"]["name"] for e in _events(engine, since, "type=network", "event=create")]
    assert sorted(created) == sorted(NETWORKS)
    assert {tuple(t["open"]) for t in got} | {tuple(t["gateway"]) for t in got} == {
        tuple(got[0]["open"]), tuple(got[0]["gateway"])}
    # One firewall chain per bridge, its four rules, one INPUT jump to it.
    client = shared_client()
    for name in NETWORKS:
        bridge = bridge_name(client.networks.get(name))
        assert _input_jumps(bridge) == [f"-A INPUT -i {bridge} -j {host_firewall.chain_name(bridge)}"]
        chain = subprocess.run(["iptables", "-S", host_firewall.chain_name(bridge)], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        assert len([line for line in chain if line.startswith("-A ")]) == 4, chain
    # One claw volume, seeded by one container; one build of the on-demand image.
    (volume,) = {t["volume"] for t in got}
    assert _named(engine, "volume", f"clawmark-{IMAGE_NAME}-") == [volume]
    claw_ref = image_ref(IMAGE_NAME)
    seeders = _events(engine, since, "type=container", "event=create", f"image={claw_ref}")
    assert len(seeders) == 1, seeders
    (probe,) = {t["image"] for t in got}
    assert [b for o in outcomes for b in o["builds"]] == [f"building {probe} on {image_ref('base')}"]
    assert engine.docker("run", "--rm", probe, "cat", "/race-probe").stdout.strip() == "built-once"
    # One registry proxy per process, whatever thread asked first.
    assert [len({tuple(t["registry_proxy"]) for t in o["results"]}) for o in outcomes] == [1, 1]


def _hand_made(client, name: str, internal: bool):
    """A network as an older clawmark or another host made it: straight through the SDK."""
    from clawmark.runtime.network import NO_ICC

    return client.networks.create(name, driver="bridge", internal=internal, options=NO_ICC,
                                  labels={"clawmark.managed": "true"})


def _doctor(monkeypatch):
    from typer.testing import CliRunner

    from clawmark.cli.main import app

    monkeypatch.setenv("COLUMNS", "300")  # one table row per line: ids and commands are not wrapped
    return CliRunner().invoke(app, ["doctor"])


def test_doctor_on_an_engine_with_the_demo_images_says_demo_ready_and_reports_duplicates(on_fresh_engine,
                                                                                          monkeypatch):
    from clawmark.runtime.engine import shared_client

    ready = _doctor(monkeypatch)
    assert ready.exit_code == 0, ready.output
    assert "demo: ready" in ready.output and "for the openclaw claw: `clawmark images build claw-openclaw`" in ready.output
    assert "not created yet: made on first use" in ready.output
    oldest, newer = (_hand_made(shared_client(), "clawmark-open", internal=False) for _ in range(2))
    reported = _doctor(monkeypatch)
    assert reported.exit_code == 0, reported.output  # the next run settles it: a warning
    assert (f"2 networks of this name ({oldest.id[:12]}, {newer.id[:12]}): the next run keeps {oldest.id[:12]}"
            in reported.output)


def test_duplicate_networks_made_by_hand_are_reconciled_by_the_next_sweep(on_fresh_engine, prefect_harness,
                                                                           tmp_path):
    from flows.sweep import sweep

    from clawmark.results import ResultStore
    from clawmark.runtime.engine import shared_client

    client = shared_client()
    made = {name: [_hand_made(client, name, name == "clawmark-isolated") for _ in range(2)] for name in NETWORKS}
    assert [len(_named(on_fresh_engine, "network", name)) for name in NETWORKS] == [2, 2]
    set_limits(**{"clawmark-docker-local": 2, "clawmark-model-scripted": 2})
    sweep_file = tmp_path / "dup.yaml"
    sweep_file.write_text(yaml.safe_dump(spec("dupnets", ["oracle"], ["scripted/demo"], max_parallel=2)))
    store = ResultStore(tmp_path / "results")
    sweep(spec_file=str(sweep_file), results_dir=str(store.root))
    (row,) = rows(store, "dupnets").values()
    assert row["status"] == "resolved", row["error_message"]
    for name, (oldest, newer) in made.items():  # the oldest kept, the unused other removed
        assert [n.id for n in client.networks.list(names=[name]) if n.name == name] == [oldest.id]


def test_two_networks_both_in_use_are_refused_naming_both_and_the_fix(on_fresh_engine, monkeypatch):
    from clawmark.runtime.engine import shared_client
    from clawmark.runtime.images import image_ref
    from clawmark.runtime.network import DuplicateNetworks, open_network

    client = shared_client()
    copies = [_hand_made(client, "clawmark-open", internal=False) for _ in range(2)]
    for network in copies:  # a running container joins by id: a start on a name held twice is ambiguous
        container = client.containers.run(image_ref("base"), ["sleep", "300"], detach=True)
        client.api.connect_container_to_network(container.id, network.id)
    with pytest.raises(DuplicateNetworks) as refused:
        open_network()
    message = str(refused.value)
    assert all(n.id[:12] in message for n in copies) and "docker network rm" in message
    assert sorted(n.id for n in client.networks.list(names=["clawmark-open"])) == sorted(n.id for n in copies)
    doctor = _doctor(monkeypatch)
    assert doctor.exit_code == 1 and "not ready: network clawmark-open" in doctor.output
    assert all(n.id[:12] in doctor.output for n in copies) and "docker network rm" in doctor.output


@pytest.mark.timeout(2400)  # 16 real cells, two of them three-turn closed loops (as tests/e2e/test_demo.py)
def test_the_demo_sweep_on_a_fresh_engine_ends_with_no_error_row(on_fresh_engine, prefect_harness, tmp_path):
    from flows.sweep import sweep

    from clawmark.results import ResultStore
    from clawmark.results.status import ERROR_STATUSES

    demo = yaml.safe_load((TASKS_CATALOG / "sweeps" / "demo.yaml").read_text())
    demo.update(max_parallel=4, instances=str(TASKS_CATALOG / "swe" / "instances.jsonl"))
    sweep_file = tmp_path / "demo.yaml"
    sweep_file.write_text(yaml.safe_dump(demo))
    set_limits(**{"clawmark-docker-local": 4, "clawmark-model-scripted": 4})
    store = ResultStore(tmp_path / "results")
    result = sweep(spec_file=str(sweep_file), results_dir=str(store.root))
    found = rows(store, "demo")
    assert result["cells"] == len(found) == 16
    errors = {key: (row["status"], row["error_message"]) for key, row in found.items() if row["status"] in ERROR_STATUSES}
    assert errors == {}
    assert _named(on_fresh_engine, "network", "clawmark-") == sorted(NETWORKS)


def test_prune_on_a_fresh_engine_removes_stale_images_while_another_process_removes_some(on_fresh_engine,
                                                                                           tmp_path):
    """Stale clawmark images (each its own id) are pruned while another client removes some of the
    same ones; the prune finishes (an image gone between its listing and its removal is a failure
    line, never a crash), nothing stale is left, and every current image stays."""
    import tarfile
    import threading

    from clawmark.runtime.images import prune_images

    empty = tmp_path / "empty.tar"
    with tarfile.open(empty, "w"):
        pass
    current = {t for t in on_fresh_engine.docker("images", "--format", "{{.Repository}}:{{.Tag}}").stdout.split()
               if t.startswith("clawmark/")}
    stale = [f"clawmark/base:{n:012d}" for n in range(12)]
    for n, ref in enumerate(stale):  # a distinct label, so a distinct image id
        on_fresh_engine.docker("import", "--change", "LABEL clawmark.managed=true",
                               "--change", f"LABEL clawmark.test-stale={n}", str(empty), ref)
    other = threading.Thread(target=lambda: on_fresh_engine.docker("rmi", *stale[::2], check=False))
    other.start()
    removed, failed = prune_images()
    other.join(60)
    left = set(on_fresh_engine.docker("images", "--format", "{{.Repository}}:{{.Tag}}").stdout.split())
    assert not left & set(stale), sorted(left & set(stale))
    assert current <= left  # every current image stays
    assert set(removed) | {line.split(": ", 1)[0] for line in failed} <= set(stale)
    assert set(stale[1::2]) <= set(removed)  # the ones nobody else removed, the prune did


CAPTURE_IN_ANOTHER_PROCESS = """
import json, sys
from pathlib import Path
from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnv, TaskEnvConfig
env = TaskEnv(load_task(Path(sys.argv[1])), TaskEnvConfig(image=sys.argv[2], cache_setup=True), Path(sys.argv[3]))
with env as sandbox:
    token = sandbox.exec("cat /opt/tool/token", timeout_s=60).stdout
print(json.dumps([env.setup_state["setup_cache"], token]))
"""


def test_attempts_of_one_task_in_two_processes_at_once_capture_its_setup_once(on_fresh_engine, tmp_path,
                                                                                monkeypatch):
    """Three attempts of one task start together on a fresh engine (two threads here, one in
    another process): one captures the set-up, the others start from it: one image, one token."""
    import os
    import threading

    from clawmark.runtime.images import image_ref
    from clawmark.taskenv.setup_cache import REPOSITORY
    from tests.support.taskenv_fixtures import make_package, task_env

    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path / "home"))
    install = "mkdir -p /opt/tool; sleep 3; head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \\n' > /opt/tool/token\n"
    package = make_package(tmp_path, "task_setup_race", {"services/install/install.sh": install},
                           services=[{"name": "install", "start": "bash install.sh", "oneshot": True}])
    image = image_ref("workstation")
    other = subprocess.Popen([sys.executable, "-c", CAPTURE_IN_ANOTHER_PROCESS, str(package), image, str(tmp_path / "p")],
                             env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, stdout=subprocess.PIPE, text=True)
    seen, errors = [], []

    def attempt(n: int) -> None:
        try:
            env = task_env(package, image, tmp_path / f"logs{n}", cache_setup=True)
            with env as sandbox:
                seen.append([env.setup_state["setup_cache"], sandbox.exec("cat /opt/tool/token", timeout_s=60).stdout])
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    out, _ = other.communicate(timeout=600)
    assert not errors and other.returncode == 0, (errors, out)
    seen.append(json.loads(out.strip().splitlines()[-1]))
    assert sorted(state for state, _ in seen) == ["captured", "hit", "hit"]
    assert len({token for _, token in seen}) == 1 and len(seen[0][1]) == 16
    tags = on_fresh_engine.docker("images", REPOSITORY, "--format", "{{.Repository}}:{{.Tag}}").stdout.split()
    assert len(tags) == 1 and not tags[0].split(":", 1)[1].startswith("partial-")


def test_eight_threads_in_two_processes_pull_a_missing_image_from_the_registry_once(on_fresh_engine, docker_client,
                                                                                     tmp_path):
    """A fresh worker engine lacks `go`; with CLAWMARK_IMAGE_REGISTRY set, eight callers at once
    get it by one pull of the host's very image (its id, so nothing was built), under its plain
    name, and the registry name does not stay behind."""
    from clawmark.runtime.image_registry import push
    from clawmark.runtime.images import image_ref
    from tests.support.image_registry import image_registry

    ref = image_ref("go")
    docker_client.images.get(ref)  # built on the shared engine (make test builds every recipe): the machine that pushes
    assert on_fresh_engine.docker("image", "inspect", ref, check=False).returncode != 0
    ask = ("import json, threading; from clawmark.runtime.images import ensure_image; got = []; "
           "threads = [threading.Thread(target=lambda: got.append(ensure_image('go'))) for _ in range(4)]; "
           "[t.start() for t in threads]; [t.join() for t in threads]; print(json.dumps(got))")
    with image_registry(tmp_path / "registry") as port:
        registry = f"127.0.0.1:{port}"
        with pytest.MonkeyPatch.context() as shared:
            shared.setenv("CLAWMARK_IMAGE_REGISTRY", registry)
            shared.delenv("DOCKER_HOST")
            push([ref])
        since = int(time.time()) - 1
        callers = [subprocess.Popen([sys.executable, "-c", ask], cwd=PROJECT_ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True,
                                    env={**environ_for(on_fresh_engine), "CLAWMARK_IMAGE_REGISTRY": registry,
                                         "CLAWMARK_HOME": str(tmp_path / f"home{n}"), "PYTHONPATH": str(PROJECT_ROOT)})
                   for n in range(2)]
        outcomes = [caller.communicate(timeout=600) for caller in callers]
    assert [c.returncode for c in callers] == [0, 0], [err[-2000:] for _, err in outcomes]
    assert [json.loads(out.strip().splitlines()[-1]) for out, _ in outcomes] == [[ref] * 4, [ref] * 4]
    pulls = _events(on_fresh_engine, since, "type=image", "event=pull")
    assert len(pulls) == 1, pulls
    pulled_id = on_fresh_engine.docker("image", "inspect", ref, "--format", "{{.Id}}").stdout.strip()
    assert pulled_id == docker_client.images.get(ref).id
    tags = on_fresh_engine.docker("images", "--format", "{{.Repository}}:{{.Tag}}").stdout.split()
    assert ref in tags and not any(tag.startswith(registry) for tag in tags)
