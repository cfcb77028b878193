"""Bench: seconds per trivial turn per claw (one scripted reply, no tool call) through the gateway.

    .venv/bin/python bench/claw_turns.py [--claws reference,mini-swe-agent,...,zeroclaw-standin]
                                         [--turns 3]

Per claw, one instance container (the bundled iniparse instance), the claw's hooks, then
``--turns`` turns in one session, each answered by a single scripted reply; a turn's figure is
the wall time of ``send_task`` (claw start-up, its model call, its exit). EDICT's trivial turn
is its entry agent answering by itself (nothing reaches the kanban, so no role is dispatched);
``zeroclaw-standin`` is the ZeroClaw adapter and its ACP client against our stand-in of
``zeroclaw acp`` (tests/fixtures/zeroclaw), since the real binary cannot be built here. The first turn is
printed apart (it pays one-off costs: templates, session store); the rest as min / median. The
machine's load average is printed beside: the figures are only comparable on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import yaml

DEFAULT_CLAWS = "reference,mini-swe-agent,nanobot,hermes,genericagent,openclaw,edict,zeroclaw-standin"
INSTANCE = "clawmark-fixtures__iniparse-py-1"
SUBMIT = {"mini-swe-agent": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}  # mini ends a turn with a command
STANDIN = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "zeroclaw"
# bench name -> (claw, settings)
VARIANTS = {"zeroclaw-standin": ("zeroclaw", {"host_dir": str(STANDIN),
                                              "command": ["python3", "/opt/claws/zeroclaw/zeroclaw_standin.py", "acp"]})}
# OpenClaw (and EDICT on it) ends each user turn with its own context message, so a trigger on the
# user's text never fires there: those claws' replies go by reply count alone.
BY_COUNT = {"openclaw", "edict"}


def cassette(folder: Path, claw: str, turns: int) -> str:
    """A reply per turn, each a trigger pinned to the turn's assistant count (one per turn)."""
    steps = []
    for turn in range(turns):
        step = {"content": f"Reply {turn}."} if claw in BY_COUNT else \
            {"match": f"bench turn {turn}", "turn": turn, "content": f"Reply {turn}."}
        if claw in SUBMIT:
            step["tool_calls"] = [{"name": "bash", "arguments": {"command": SUBMIT[claw]}}]
        steps.append(step)
    name = f"bench-turn-{claw}"
    (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}))
    return f"scripted/{name}"


def measure(claw_name: str, turns: int, gateway, folder: Path) -> list[float]:
    from clawmark.attempts.gateway_link import container_url, host_url
    from clawmark.catalog import load_instances
    from clawmark.claws import ClawContext, get_claw
    from clawmark.settings import TASKS_CATALOG
    from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig

    instance = next(i for i in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl") if i.instance_id == INSTANCE)
    name, settings = VARIANTS.get(claw_name, (claw_name, {}))
    claw, attempt, model = get_claw(name, settings), f"bench-{claw_name}", cassette(folder, name, turns)
    gateway.register_attempt(attempt, model=model, ledger_path=folder / f"{attempt}.jsonl")
    host = host_url(gateway, attempt, "executor")
    ctx = ClawContext(attempt_id=attempt, model=model, host_dir=folder / claw_name, host_gateway_url=host,
                      gateway_url=container_url(gateway, attempt, "executor") if claw.runs_in_container else host)
    seconds = []
    with InstanceEnv(instance, InstanceEnvConfig(**claw.docker_args(ctx))) as sandbox:
        ctx.sandbox = sandbox
        claw.post_container_start(ctx)
        claw.create_agent(ctx)
        for turn in range(turns):
            start = time.perf_counter()
            result = claw.send_task(ctx, f"bench turn {turn}: say something short.", turn)
            seconds.append(time.perf_counter() - start)
            if not result.success:
                raise SystemExit(f"{claw_name} turn {turn} failed: {result.exit_status} {result.error}")
        claw.delete_agent(ctx)
    gateway.unregister_attempt(attempt)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claws", default=DEFAULT_CLAWS)
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from clawmark.gateway.server import GatewayConfig, GatewayServer
    from clawmark.runtime.network import gateway_network

    # Bound as the pipeline binds it: loopback (host-side claws) + the containers' network.
    config = GatewayConfig(host="127.0.0.1", also_hosts=[gateway_network()[1]], ledger_dir=Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix="claw-turns-") as tmp, \
            GatewayServer(config.model_copy(update={"ledger_dir": Path(tmp)})) as gateway:
        folder = Path(tmp)
        os.environ["CLAWMARK_CASSETTES"] = str(folder)
        print(f"{'claw':<16}{'first s':>9}{'min s':>8}{'median s':>10}   load avg")
        for claw in args.claws.split(","):
            seconds = measure(claw, args.turns, gateway, folder)
            rest = seconds[1:] or seconds
            print(f"{claw:<16}{seconds[0]:>9.2f}{min(rest):>8.2f}{statistics.median(rest):>10.2f}   "
                  f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
