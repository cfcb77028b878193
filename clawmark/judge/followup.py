"""The follow-up channel's gate: a message whose leak audit fires never reaches the executor.

    simulate ─► rewrite ─► leak audit ─► clean: send it
                                      └► leaks: redact the flagged spans, ask the simulator once
                                         more (the redacted draft and the reasons, never the
                                         spans) ─► rewrite ─► leak audit ─► clean: send it
                                                                         └► leaks: send the task
                                                                            language's neutral
                                                                            continue message
`blocked` counts the drafts the audit stopped (0, 1 or 2): the row's `followup_leak_blocked`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.chat import ChatFn
from clawmark.judge.evidence import Evidence
from clawmark.judge.fence import Fence
from clawmark.judge.info_firewall import FirewallView
from clawmark.judge.leak_audit import Leak, find_leaks
from clawmark.judge.rewriter import neutral_continue, redact, rewrite
from clawmark.judge.simulator import BlockedDraft, SimulatorOutput, simulate

# What the simulator is told about a stopped draft: the kind of slip, in the user's terms.
LEAK_REASONS = {
    "rubric_ngram": "a passage of a private document you never wrote or saw",
    "reference_ngram": "a passage of a private document you never wrote or saw",
    "reference_name": "the name of a private file you never mentioned",
    "check_name": "the name of an internal check",
    "score_number": "a score-like number or percentage",
    "judge_word": "words about grading (score, rubric, checkpoint, grader and the like)",
}
Sent = Literal["simulator", "simulator_retry", "neutral"]


class FollowUp(BaseModel):
    message: str = Field(description="What the executor receives next.")
    sent: Sent = Field(description="Whose words those are: the first draft, the retry, or the neutral line.")
    blocked: int = Field(0, ge=0, le=2, description="Drafts the leak audit stopped.")
    flags: list[str] = Field(default_factory=list, description="Language and leak flags of every draft, and "
                             "a followup_blocked line saying what was sent instead.")
    outputs: list[SimulatorOutput] = Field(default_factory=list, description="Each simulator answer.")
    blocked_drafts: list[BlockedDraft] = Field(default_factory=list)


def gated_follow_up(task: ClosedLoopTask, view: FirewallView, visible: Evidence, chat: ChatFn, *, turn: int,
                    max_turns: int, snapshot: bool, fence: Fence) -> FollowUp:
    """The next executor message after turn `turn`, never one the leak audit flags; raises
    SimulatorFailed when a simulator answer is invalid twice."""
    public = visible.raw_text()  # what the executor wrote itself is no leak when echoed back
    outputs, flags, drafts = [], [], []
    for round_ in range(2):
        sim = simulate(task, view, visible, chat, turn=turn, max_turns=max_turns, snapshot=snapshot, fence=fence,
                       blocked=drafts[-1] if drafts else None)
        outputs.append(sim)
        draft = rewrite(view, sim, task.language, fence)
        leaks = find_leaks(draft, task, visible=public)
        flags += sim.flags + [leak.flag() for leak in leaks]
        if not leaks:
            sent: Sent = "simulator_retry" if round_ else "simulator"
            note = [f"followup_blocked: turn {turn} draft redacted, the retry was clean and sent"] if round_ else []
            return FollowUp(message=draft, sent=sent, blocked=round_, flags=flags + note, outputs=outputs,
                            blocked_drafts=drafts)
        drafts.append(BlockedDraft(redacted=redact(draft, [s for leak in leaks for s in leak.spans]),
                                   reasons=reasons(leaks)))
    flags.append(f"followup_blocked: turn {turn} retry still leaked, the neutral continue message was sent")
    return FollowUp(message=neutral_continue(task.language), sent="neutral", blocked=2, flags=flags,
                    outputs=outputs, blocked_drafts=drafts)


def reasons(leaks: list[Leak]) -> list[str]:
    return list(dict.fromkeys(LEAK_REASONS.get(leak.kind, "something you cannot know") for leak in leaks))
