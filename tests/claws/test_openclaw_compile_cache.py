"""OpenClaw's Node compile cache comes warm in both OpenClaw images: a turn in an instance
container, where the claw's folder is a read-only volume, reads every module's compiled code from
it and writes none. Without it each attempt's first turn spent ~3 s of CPU writing ~30 MB of
cache into the container's /tmp that no later attempt read.

The turn here is OpenClaw's own `agent` command with no provider configured: it loads the agent's
modules and then fails, as the image's warm-up did."""

from __future__ import annotations

import pytest

from clawmark.claws.openclaw import COMPILE_CACHE, OPENCLAW, ROOT
from clawmark.claws.volumes import seeded_volume
from clawmark.runtime.images import ensure_image

pytestmark = pytest.mark.docker

TURN = (f"mkdir -p /tmp/home && HOME=/tmp/home {OPENCLAW} agent --local --session-id probe --message hi "
        "--json --timeout 5 >/dev/null 2>/tmp/err; grep -F '[compile cache]' /tmp/err; "
        "ls -d /tmp/node-compile-cache 2>/dev/null; true")


@pytest.mark.parametrize("recipe", ["claw-openclaw", "claw-openclaw-2026.3.11"])
def test_an_openclaw_turn_reads_the_images_compile_cache_and_writes_none(recipe, docker_client):
    volume = seeded_volume(recipe, ROOT, f"{OPENCLAW} --version")
    output = docker_client.containers.run(
        ensure_image("python"), ["sh", "-c", TURN], remove=True, network_mode="none",
        environment={"NODE_COMPILE_CACHE": COMPILE_CACHE, "NODE_DEBUG_NATIVE": "COMPILE_CACHE"},
        volumes={volume: {"bind": ROOT, "mode": "ro"}}).decode(errors="replace")
    lines = output.splitlines()
    accepted = [line for line in lines if "was accepted" in line]
    missed = [line for line in lines if "was not initialized" in line or "rejected" in line]
    written = [line for line in lines if "] writing cache for" in line]
    assert len(accepted) > 1000, output[-3000:]
    assert (missed, written) == ([], [])
    assert "/tmp/node-compile-cache" not in output  # OpenClaw's default place stays unused
