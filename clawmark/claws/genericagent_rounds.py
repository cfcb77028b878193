"""Runs INSIDE the container with GenericAgent's own venv (never imported by clawmark).

GenericAgent 1.0.7's file mode (``python -m genericagent.agentmain --task ID``) dies on the
second follow-up: its round counter starts as the string ``''``, becomes the int ``1`` after
the first reply, and the next reply hits ``nround.isdigit()`` on that int (AttributeError in
``agentmain.main``). It also gives up when the agent emits nothing for 120 s and when no reply
comes for 300 s — shorter than one slow model call or one closed-loop judging pause.

This is the same file protocol on GenericAgent's own agent class (``GeneraticAgent``, set up as
its ``main`` does): ``TASK_DIR/input.txt`` starts round 0; each round's reply goes to
``output.txt``, ``output1.txt``, ``output2.txt``... ending with ``[ROUND END]``; a
``reply.txt`` starts the next round in the same conversation. Its limits are the host's, and
the step limit: agentmain hard-codes 40 model calls per round (``agent_runner_loop(...,
max_turns=40)``); MAX_TURNS replaces it, so GenericAgent gets the protocol's limit like every claw.

    python genericagent_rounds.py TASK_DIR REPLY_WAIT_S [LLM_NO [MAX_TURNS]]
"""

import os
import sys
import threading
import time

import genericagent.agentmain as agentmain
from genericagent.agentmain import GeneraticAgent

ROUND_END = "\n\n[ROUND END]\n"


def write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def next_message(task_dir, wait_s):
    """The text of reply.txt (removed once read), or None when none came within ``wait_s``."""
    reply, deadline = os.path.join(task_dir, "reply.txt"), time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if os.path.exists(reply):
            with open(reply, encoding="utf-8") as handle:
                text = handle.read()
            os.remove(reply)
            return text
        time.sleep(0.5)
    return None


def limit_turns(max_turns):
    """Every round's agent loop gets ``max_turns`` instead of agentmain's hard-coded 40."""
    loop = agentmain.agent_runner_loop

    def limited(*args, **kwargs):
        kwargs["max_turns"] = max_turns
        return loop(*args, **kwargs)

    agentmain.agent_runner_loop = limited


def main(task_dir, wait_s, llm_no=0, max_turns=None):
    if max_turns is not None:
        limit_turns(max_turns)
    agent = GeneraticAgent()
    agent.next_llm(llm_no)
    agent.verbose = False
    threading.Thread(target=agent.run, daemon=True).start()
    with open(os.path.join(task_dir, "input.txt"), encoding="utf-8") as handle:
        message = handle.read()
    round_no = 0
    while message is not None:
        output = os.path.join(task_dir, f"output{round_no or ''}.txt")
        display = agent.put_task(message, source="task")
        while "done" not in (item := display.get()):
            if "next" in item:  # the reply so far, as agentmain writes it: a cut round still shows it
                write(output, item["next"])
        write(output, item["done"] + ROUND_END)
        message = next_message(task_dir, wait_s)
        round_no += 1


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0,
         int(sys.argv[4]) if len(sys.argv) > 4 else None)
