"""Shared fixtures. Docker-backed tests fail (never skip) when no engine answers:
`make test` starts one, and CI must run them for real."""

from __future__ import annotations

import os
import tempfile

import pytest
from _pytest.nodeid import NodeId  # pytest 9's id type: the group shim below writes one

# Hermetic, quiet and offline before anything imports litellm or prefect.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "60")
os.environ.pop("PREFECT_API_URL", None)
if os.environ.get("PYTEST_XDIST_WORKER"):  # a pool worker inherits the controller's home: not shared
    os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix=f"clawmark-prefect-{os.environ['PYTEST_XDIST_WORKER']}-")
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="clawmark-prefect-"))

# Under a pool (`pytest -n N --dist loadgroup`, scripts/run-tests.sh) the slowest work is handed out
# first, so no worker starts a long claw case when the others are nearly done.
SLOW_FIRST = ("tests/faults/", "tests/claws/", "tests/e2e/", "tests/integration/", "tests/browser/")
# The fault tests stop engines, fill disks and hold host locks while they wait: run side by side
# in the pool, four of them sat in each other's waits for 10 minutes at load 0.6. One worker runs
# them in turn, as their own part did before the pool.
ONE_AT_A_TIME = "tests/faults/"
SLOW_CLAWS = ("edict", "openclaw")  # Node claws: an OpenClaw turn is ~20 s of CPU, an EDICT turn four of them
# Four Node claws at once on 2 cores thrashed: OpenClaw's own lane timers expired and its turns
# stretched 5x (a one-turn patch case took 295 s, the court 1,573 s, at load 20). The Node claw cases
# share two lanes, each run in turn by one worker, so at most two run at once and the other
# workers take the light tests beside them. Weights: what a case costs in OpenClaw starts.
NODE_LANES = 2
NODE_WEIGHTS = (("test_claws_edict", 12), ("edict", 4), ("openclaw", 1))


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into the test ids
def pytest_collection_modifyitems(config, items):
    """Keep each module whose fixtures are module-scoped (a private engine, a Prefect pool, a
    swept store) on one pool worker, so its set-up runs once; order the rest slowest first."""
    grouped = set()
    for item in items:
        definitions = getattr(item, "_fixtureinfo", None)
        scopes = {d.scope for defs in (definitions.name2fixturedefs.values() if definitions else ()) for d in defs}
        if item.nodeid.startswith(ONE_AT_A_TIME):
            item.add_marker(pytest.mark.xdist_group(ONE_AT_A_TIME))
            grouped.add(item.nodeid)
        elif "module" in scopes:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
            grouped.add(item.nodeid)
    _share_node_lanes([item for item in items if item.nodeid not in grouped], grouped)

    def rank(item) -> tuple[bool, int]:
        # A grouped module moves whole (split, its set-up would run again): by its file name alone.
        named = item.nodeid.split("::")[0] if item.nodeid in grouped else item.nodeid
        place = next((i for i, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)), len(SLOW_FIRST))
        return not any(name in named for name in SLOW_CLAWS), place
    items.sort(key=rank)


class XdistGroupIds:
    """pytest-xdist 3.8 names a test's group by appending it to `Item._nodeid`, which pytest 9 no
    longer reads (`nodeid` is built from `Item._id`): without this the controller never saw a
    group, and grouped tests (the fault tests too) ran on any worker side by side."""

    @pytest.hookimpl(trylast=True)  # after xdist's own hook has written the suffix
    def pytest_collection_modifyitems(self, items):
        for item in items:
            legacy = getattr(item, "_nodeid", None)
            if isinstance(legacy, str) and "@" in legacy and legacy != item.nodeid:
                item._id = NodeId.parse(legacy)


def pytest_configure(config):
    config.pluginmanager.register(XdistGroupIds(), "clawmark-xdist-group-ids")


def _node_weight(nodeid: str) -> int:
    return next((weight for name, weight in NODE_WEIGHTS if name in nodeid), 0)


def _share_node_lanes(items, grouped: set[str]) -> None:
    """The Node claw cases into NODE_LANES groups of about equal weight, heaviest first."""
    lanes = [0] * NODE_LANES
    for item in sorted((i for i in items if _node_weight(i.nodeid)), key=lambda i: -_node_weight(i.nodeid)):
        lane = lanes.index(min(lanes))
        lanes[lane] += _node_weight(item.nodeid)
        item.add_marker(pytest.mark.xdist_group(f"node-claws-{lane + 1}"))
        grouped.add(item.nodeid)


@pytest.fixture(scope="session")
def docker_client():
    """A live Docker client; fails the test when no engine answers."""
    import docker

    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no engine"
        pytest.fail(f"Docker engine not reachable ({exc}); run `make engine` or `bash scripts/engine-up.sh`")
    return client


@pytest.fixture(scope="session")
def prefect_server():
    """One temporary Prefect server (SQLite) per test process, whatever folder its tests come
    from: Prefect's event, log and lease workers are process-wide and follow the first server they
    talk to, so a second harness in the same pool worker (faults' beside e2e's, a module's own)
    left them sending to a stopped one (lease renewals "410 Gone", a flow waiting on a slot)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def prefect_harness(prefect_server):
    """The process's Prefect server, with no concurrency slot held: a test that failed holding
    one (a stage cut by its timeout) must not leave the next flow test waiting on it forever."""
    from prefect.client.orchestration import get_client

    from flows.limits import free_held_slots

    with get_client(sync_client=True) as client:
        free_held_slots(client, client.read_global_concurrency_limits(limit=200))
    yield

