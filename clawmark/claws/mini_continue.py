"""Runs INSIDE the container with mini-swe-agent's own venv (never imported by clawmark).

mini-swe-agent 2.4.6 has no CLI resume, so a follow-up turn is this small wrapper: rebuild the
agent from the same config specs, reload the saved trajectory, append the user's message and keep
stepping with mini's own loop semantics until it exits again (submit, limit or error).

    python mini_continue.py TRAJ.json MESSAGE.txt MODEL SPEC [SPEC ...]
"""

import json
import sys
from pathlib import Path

from minisweagent.agents import get_agent
from minisweagent.config import get_config_from_spec
from minisweagent.environments import get_environment
from minisweagent.exceptions import InterruptAgentFlow
from minisweagent.models import get_model
from minisweagent.utils.serialize import recursive_merge


def build_agent(traj_path, model_name, specs):
    overrides = {"agent": {"mode": "yolo", "confirm_exit": False, "output_path": traj_path},
                 "model": {"model_name": model_name}}
    config = recursive_merge(*(get_config_from_spec(spec) for spec in specs), overrides)
    model = get_model(config=config.get("model", {}))
    env = get_environment(config.get("environment", {}), default_type="local")
    return get_agent(model, env, config.get("agent", {}), default_type="interactive")


def previous_messages(traj_path):
    """The saved conversation minus its exit marker; a submit call never got its tool result
    (mini stops on it), so one is added, as chat APIs refuse unanswered tool calls."""
    messages = [m for m in json.loads(Path(traj_path).read_text())["messages"] if m.get("role") != "exit"]
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    last = messages[-1] if messages else {}
    for call in last.get("tool_calls") or []:
        if call.get("id") not in answered:
            messages.append({"role": "tool", "tool_call_id": call.get("id"), "content": "Submitted."})
    return messages


def main(traj_path, message_path, model_name, *specs):
    agent = build_agent(traj_path, model_name, specs)
    agent.messages = previous_messages(traj_path)
    agent.add_messages({"role": "user", "content": Path(message_path).read_text()})
    while agent.messages[-1].get("role") != "exit":
        try:
            agent.step()
        except InterruptAgentFlow as flow:  # Submitted, LimitsExceeded, FormatError: as in mini's run()
            agent.add_messages(*flow.messages)
        except Exception as exc:
            agent.handle_uncaught_exception(exc)
            raise
        finally:
            agent.save(agent.config.output_path)


if __name__ == "__main__":
    main(*sys.argv[1:])
