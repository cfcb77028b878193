"""The user simulator (role=user_simulator): writes the next message as the original human.

It sees only the firewall's four fields, the public task and the executor's visible evidence;
never the rationale, the rubric or references. Its reply is validated (one repair request, then
SimulatorFailed, an infra error); candidate feedback in the wrong language is kept but flagged
(`wrong_language: expected zh, got en`).

Prompt anchors (stable substrings of the latest user message, for scripted cassettes):
- `USER SIMULATOR AFTER EXECUTOR TURN {n} OF {max}` and `TASK {task_id}` (repair requests too);
- `STATE {verdict}/{attempt_state}`: the firewall view, e.g. `STATE continue/incomplete`;
- `SIMULATOR REPAIR`: only in the repair request.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from clawmark import failpoint
from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.chat import ChatFn
from clawmark.judge.decision import extract_json_object, validation_summary
from clawmark.judge.evidence import Evidence
from clawmark.judge.firewall import FirewallView
from clawmark.judge.language import detect_language
from clawmark.judge.prompting import ReplyInvalid, ask_with_repair

LANGUAGE_NAMES = {"en": "English", "zh": "Chinese (简体中文)"}
PublicPoint = Annotated[str, StringConstraints(max_length=200)]
SYSTEM = """You are the person who asked an AI assistant to do the task below. You write your next \
message to the assistant, in the first person, in {language}, in the register of the original request. \
You only know what you can see: the task you wrote, what the assistant said and did, and the files \
it saved; and a hint whether the work is done ({state}). Never mention supervisors, judges, graders, \
rubrics, scores, checks, cycles, turns or any hidden reference. Point at what you can see is missing or \
wrong, as the user would. Modes: silent (you would say nothing), nudge (a short push to go on), \
instruction (say what you want done). The hint is for you only. Answer with ONE JSON object and nothing else:
{{"mode": "silent | nudge | instruction", "tone": "a few words", \
"feedback": "your message, at most 1200 characters", "public_points": ["at most 10 short points"]}}"""


class SimulatorFailed(Exception):
    """Two invalid simulator replies in a row: the attempt ends as an infra error."""

    def __init__(self, message: str, raw_outputs: list[str]):
        super().__init__(message)
        self.raw_outputs = raw_outputs


class SimulatorReply(BaseModel):
    """What the model must return."""

    model_config = ConfigDict(extra="ignore")

    mode: Literal["silent", "nudge", "instruction"]
    tone: str = Field("", max_length=100)
    feedback: str = Field("", max_length=1200)
    public_points: list[PublicPoint] = Field(default_factory=list, max_length=10)


class SimulatorOutput(SimulatorReply):
    flags: list[str] = Field(default_factory=list, description="e.g. wrong_language: expected zh, got en.")
    raw_outputs: list[str] = Field(default_factory=list)


def simulate(task: ClosedLoopTask, view: FirewallView, visible: Evidence, chat: ChatFn, *,
             turn: int, max_turns: int, snapshot: bool = False) -> SimulatorOutput:
    """The simulator's next message after executor turn `turn`; raises SimulatorFailed."""
    anchors = simulator_anchors(task, view, turn, max_turns)
    messages = [{"role": "system", "content": system_prompt(task, view)},
                {"role": "user", "content": [{"type": "text", "text": request_text(task, view, visible, anchors,
                                                                                  snapshot)},
                                             *visible.image_parts()]}]
    try:
        reply, outputs = ask_with_repair(chat, messages, parse_reply, lambda why: repair_text(anchors, why))
    except ReplyInvalid as exc:
        raise SimulatorFailed(f"user simulator of {task.task_id} turn {turn}: {exc}", exc.raw_outputs) from None
    failpoint.reach("simulator-answered")  # CLAWMARK_FAILPOINT: the stage-retry replay test fails here
    return SimulatorOutput(**reply.model_dump(), flags=language_flags(reply, task.language), raw_outputs=outputs)


def repair_text(anchors: str, reason: str) -> str:
    return f"{anchors}\nSIMULATOR REPAIR\nYour reply was not valid: {reason}\nAnswer with only the JSON object."


def parse_reply(text: str) -> SimulatorReply:
    try:
        return SimulatorReply.model_validate(extract_json_object(text))
    except ValidationError as exc:
        raise ValueError(validation_summary(exc)) from None


def language_flags(reply: SimulatorReply, expected: str) -> list[str]:
    if reply.mode == "silent":
        return []
    found = detect_language(reply.feedback)
    return [f"wrong_language: expected {expected}, got {found}"] if found and found != expected else []


def simulator_anchors(task: ClosedLoopTask, view: FirewallView, turn: int, max_turns: int) -> str:
    return (f"USER SIMULATOR AFTER EXECUTOR TURN {turn} OF {max_turns}\nTASK {task.task_id}\n"
            f"STATE {view.verdict}/{view.attempt_state}")


def system_prompt(task: ClosedLoopTask, view: FirewallView) -> str:
    text = SYSTEM.format(language=LANGUAGE_NAMES[task.language], state=view.attempt_state.replace("_", " "))
    override = task.spec.codex.user_simulator
    policy = override and (override.policy or override.instructions)
    return text + (f"\n\nHow this user behaves:\n{policy}" if policy else "")


def request_text(task: ClosedLoopTask, view: FirewallView, visible: Evidence, anchors: str, snapshot: bool) -> str:
    return "\n\n".join([anchors, f"## The task you asked for\n{task.prompt(snapshot)}",
                        f"## Where things stand (hint only)\n{json.dumps(view.model_dump())}",
                        visible.render_text()])
