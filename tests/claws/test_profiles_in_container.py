"""Each claw under each protocol profile gets the profile's version, limits and settings: its
config rendered into a real container and read back the way the claw itself reads it —
OpenClaw's own `config validate`, Nanobot's own config loader — next to the version the
container's binary reports. Only a profile with its own patch prompt (csb-paper, here our
fixture file) costs a model turn: one scripted answer, so the gateway records the prompt sent."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from clawmark.claws import Budgets
from clawmark.claws.profiles import ProfileSource, ProfileUse, load_profile, profiled_claw
from tests.claws.kit import texts
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from tests.claws.test_conformance import _context
from tests.support.attempt_fixtures import INI, INSTANCES
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.docker

CHECKOUT = FIXTURES / "profile-checkout"
CASES = [("clawmark", "openclaw"), ("clawmark", "nanobot"), ("clawmark", "hermes"),
         ("ucb-paper", "openclaw"), ("ucb-paper", "nanobot"), ("ucb-paper", "edict"),
         ("csb-paper", "openclaw"), ("csb-paper", "nanobot"), ("csb-paper", "hermes"), ("csb-paper", "genericagent")]
SWEEP_BUDGETS = Budgets(steps=42, seconds=900)  # what the sweep asks; the profile's own limits win
SWEEP_SETTINGS = {"edict": {"checkout": str(Path(__file__).parents[1] / "fixtures" / "edict-checkout")}}


def _use(profile: str) -> ProfileUse:
    key = load_profile(profile).checkout_key
    return ProfileUse(name=profile, sources={key: ProfileSource(checkout=CHECKOUT)} if key else {})


@pytest.mark.parametrize(("profile", "claw_name"), CASES, ids=[f"{p}-{c}" for p, c in CASES])
def test_the_claw_in_its_container_has_the_profiles_version_limits_and_settings(profile, claw_name, gateway,
                                                                                 provider, tmp_path):
    claw, budgets = profiled_claw(claw_name, SWEEP_SETTINGS.get(claw_name, {}), SWEEP_BUDGETS, _use(profile))
    pins = load_profile(profile).claws.get(claw_name)
    expected = {"steps": 42, "seconds": 900.0, **(pins.budgets.model_dump(exclude_none=True) if pins else {})}
    assert budgets.model_dump(include=set(expected)) == expected
    attempt_id, model = f"profile-{profile}-{claw_name}", "scripted/profile-prompt"
    gateway.register_attempt(attempt_id, model=model, ledger_path=tmp_path / "ledger.jsonl")
    ctx = _context(claw, attempt_id, model, gateway, tmp_path)
    ctx.budgets = budgets
    instance = INSTANCES[INI]
    prompt = claw.render_prompt(problem_statement=instance.problem_statement, base_commit=instance.base_commit,
                                workspace=ctx.workspace)
    seen_before = len(provider.requests("profile-prompt"))
    with InstanceEnv(instance, InstanceEnvConfig(**claw.docker_args(ctx))) as sandbox:
        ctx.sandbox = sandbox
        claw.post_container_start(ctx)
        claw.create_agent(ctx)
        seen = READ_BACK[claw_name](claw, ctx)
        if pins and pins.prompt:
            turn = claw.send_task(ctx, prompt, 0)
            assert turn.success, turn.error
            first = provider.requests("profile-prompt")[seen_before]
            sent = "\n".join(texts(first["messages"], "user"))
            assert "PROFILE-FIXTURE-PROMPT" in sent and instance.base_commit in sent
            assert instance.problem_statement[:80] in sent
    gateway.unregister_attempt(attempt_id)
    assert getattr(claw, "release", claw.version) in seen["version"]  # a court's version also names its commit
    assert (pins.version if pins and pins.version else claw.version) in seen["version"]
    CHECKS[claw_name](seen, budgets, pins.settings if pins else {})


def _openclaw(claw, ctx) -> dict:
    from clawmark.claws.openclaw import OPENCLAW

    run = ctx.sandbox.exec(f"{OPENCLAW} --version && {OPENCLAW} config validate", timeout_s=180, env=claw.env(ctx))
    assert run.exit_code == 0, run.stdout + run.stderr  # the pinned OpenClaw accepts the config it got
    return {"version": run.stdout, "config": json.loads(ctx.sandbox.read_file(claw.config_path(ctx)))}


def _openclaw_checks(seen: dict, budgets: Budgets, pinned: dict) -> None:
    config = seen["config"]
    defaults, tools = config["agents"]["defaults"], config["tools"]
    assert defaults["timeoutSeconds"] == int(budgets.seconds)
    assert tools.get("deny", []) == pinned.get("deny_tools", [])
    assert defaults.get("contextTokens") == pinned.get("context_tokens")
    assert config.get("browser", {}).get("enabled", True) is pinned.get("native_browser", True)
    assert config.get("commands", {}).get("nativeSkills") == pinned.get("native_skills")


def _nanobot(claw, ctx) -> dict:
    from clawmark.claws.nanobot import NANOBOT, VENV

    as_loaded = ("import json, sys; from pathlib import Path; from nanobot.config.loader import load_config; "
                 "c = load_config(Path(sys.argv[1])); d = c.agents.defaults; "
                 "print(json.dumps({'max_tool_iterations': d.max_tool_iterations, "
                 "'context_window_tokens': d.context_window_tokens, 'web': c.tools.web.enable, "
                 "'exec_timeout': c.tools.exec.timeout}))")
    loaded = ctx.sandbox.exec(f"{VENV}/bin/python -c {shlex.quote(as_loaded)} {claw._config_path(ctx)}", timeout_s=120)
    assert loaded.exit_code == 0, loaded.stderr
    version = ctx.sandbox.exec(f"{NANOBOT} --version", timeout_s=120).stdout
    return {"version": version, "loaded": json.loads(loaded.stdout.strip().splitlines()[-1])}


def _nanobot_checks(seen: dict, budgets: Budgets, pinned: dict) -> None:
    loaded = seen["loaded"]
    assert loaded["max_tool_iterations"] == budgets.steps
    assert loaded["web"] is pinned.get("web_tools", True)
    assert loaded["exec_timeout"] == pinned.get("exec_timeout_s", 120)
    if "context_window_tokens" in pinned:
        assert loaded["context_window_tokens"] == pinned["context_window_tokens"]


def _hermes(claw, ctx) -> dict:
    from clawmark.claws.hermes import HERMES

    version = ctx.sandbox.exec(f"{HERMES} --version", timeout_s=120, env=claw._env(ctx)).stdout
    config = yaml.safe_load(ctx.sandbox.read_file(f"{claw._home(ctx)}/config.yaml"))
    return {"version": version, "config": config, "command": claw.command(ctx, "/tmp/task.txt", 0)}


def _hermes_checks(seen: dict, budgets: Budgets, pinned: dict) -> None:
    config = seen["config"]
    assert config["agent"]["max_turns"] == budgets.steps
    assert config["agent"].get("reasoning_effort") == pinned.get("reasoning_effort")
    assert config.get("compression", {}).get("enabled") == pinned.get("compression")
    assert config["terminal"].get("timeout") == pinned.get("terminal_timeout_s")
    toolsets = pinned.get("toolsets")
    assert (f"-t {','.join(toolsets)}" in seen["command"]) if toolsets else (" -t " not in seen["command"])


def _genericagent(claw, ctx) -> dict:
    from clawmark.claws.genericagent import PYTHON

    probe = "import importlib.metadata as m; print('genericagent', m.version('genericagent'))"
    return {"version": ctx.sandbox.exec(f"{PYTHON} -c {shlex.quote(probe)}", timeout_s=120).stdout}


def _genericagent_checks(seen: dict, budgets: Budgets, pinned: dict) -> None:
    assert pinned == {}  # upstream's task_dir is how the adapter runs it; its limits are the host's (above)


def _edict_checks(seen: dict, budgets: Budgets, pinned: dict) -> None:
    """The court's roster in the form its release validated (2026.3.11: `agents.list`)."""
    _openclaw_checks(seen, budgets, {k: v for k, v in pinned.items() if k != "runtime_preface"})
    roster = seen["config"]["agents"]["list"]
    assert len(roster) == 11 and [a["id"] for a in roster if a.get("default")] == ["taizi"]


READ_BACK = {"openclaw": _openclaw, "nanobot": _nanobot, "hermes": _hermes, "genericagent": _genericagent,
             "edict": _openclaw}
CHECKS = {"openclaw": _openclaw_checks, "nanobot": _nanobot_checks, "hermes": _hermes_checks,
          "genericagent": _genericagent_checks, "edict": _edict_checks}
