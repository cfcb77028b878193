"""The runtime facts every claw is told before its first closed-loop task, in our own words.

UniClawBench's runner opens every executor prompt with the facts of the container the claw is
in (its ``lib/templates/executor_runtime.py``, read at f8dd80f): the workspace, the results root,
the screen geometry, browser guidance, "end with a final text", and the ``SKILL.md`` entry point
of every skill installed; for EDICT a routing note comes next, then the task. Without it a claw
is judged on skills and folders nobody told it of, so clawmark sends the same facts to every claw
(the claw adds its own note through ``ClawAdapter.routing_note``). The text is protocol: the
attempt hashes it into the cell key (``clawmark.attempts.closed_loop``).
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class RuntimeFacts(BaseModel):
    """What the task container gives the claw, as the preamble states it."""

    workspace: str
    sources_dir: str
    results_root: str
    skills_dir: str
    skills: list[str] = Field(default_factory=list, description="Names of the skills installed, sorted.")
    screen: tuple[int, int] | None = Field(None, description="Width, height of the display; None = no display.")
    browser_url: str | None = Field(None, description="DevTools endpoint of the desktop's browser; None = none.")


def skill_entry(facts: RuntimeFacts, name: str) -> str:
    return f"{facts.skills_dir}/{name}/SKILL.md"


def compose_preamble(facts: RuntimeFacts) -> str:
    lines = [
        "Runtime context of this task:",
        f"- Workspace: {facts.workspace}; the task's input files are under {facts.sources_dir}.",
        f"- Results root: {facts.results_root}. Save every deliverable there, with any notes, screenshots or "
        "other evidence that supports your answer.",
        *_display_lines(facts),
        "- When the request is fully done, end your turn with a final text message that states your "
        "conclusion, and make no further tool calls in that message.",
        f"Installed skills (read a skill's SKILL.md before you use it; each lives in its own folder under "
        f"{facts.skills_dir}):",
        *([f"- {skill_entry(facts, name)}" for name in facts.skills] or ["- none"]),
    ]
    return "\n".join(lines)


def _display_lines(facts: RuntimeFacts) -> list[str]:
    lines = []
    if facts.screen is not None:
        width, height = facts.screen
        lines.append(f"- Screen: the desktop is exactly {width} x {height} pixels, origin (0, 0) at the top left "
                     f"and ({width - 1}, {height - 1}) at the bottom right. Give every click, move or drag "
                     f"coordinate in this {width} x {height} frame, even when a screenshot you see was scaled "
                     "down: convert back to full size first.")
    if facts.browser_url is not None:
        driver = next((f" (see {skill_entry(facts, s)})" for s in facts.skills if "browser" in s), "")
        lines.append(f"- Browser: a Chromium window runs on the desktop, its DevTools endpoint at "
                     f"{facts.browser_url}{driver}. Look at the page afresh before each click or keystroke, and "
                     f"save browser screenshots under {facts.results_root} when they are evidence.")
    return lines


def first_prompt(preamble: str, note: str, task_text: str) -> str:
    """The first executor message: runtime facts, the claw's own note, then the task as written."""
    return "\n\n".join(part.strip() for part in (preamble, note, task_text) if part.strip()) + "\n"
