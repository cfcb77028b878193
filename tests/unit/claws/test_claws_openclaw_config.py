"""The openclaw.json the OpenClaw adapter writes, for both releases it runs (2026.9.6 and the
ucb-paper pin 2026.3.11), without Docker; that each release accepts it is checked in its image."""

from __future__ import annotations

import pytest

from clawmark.claws import ClawContext, get_claw


def _config(tmp_path, release: str, **settings):
    claw = get_claw("openclaw", settings)
    claw.version = release
    ctx = ClawContext(attempt_id="a1", model="scripted/x", gateway_url="http://gw:1/v1", host_dir=tmp_path,
                      workspace="/repo")
    return claw, claw.openclaw_config(ctx)


@pytest.mark.parametrize("release", ["2026.9.6", "2026.3.11"])
def test_the_store_is_not_pruned_and_memory_runs_as_shipped_unless_turned_off(tmp_path, release):
    claw, config = _config(tmp_path, release)
    assert config["session"] == {"maintenance": {"mode": "warn"}}
    assert "plugins" not in config and "memory_plugin" not in claw.settings()  # cells keep their keys
    assert ("cwd" in config["agents"]["defaults"]) is (release == "2026.9.6")

    claw, config = _config(tmp_path, release, memory_plugin=False)
    assert config["plugins"] == {"slots": {"memory": "none"}}
    assert claw.settings()["memory_plugin"] is False  # a cell without memory is a cell of its own
