"""The first executor message of a closed-loop attempt: the runtime facts of its container
(clawmark.claws.preamble), the claw's own note, then the task as written. Follow-up turns get
the rewritten feedback alone, as upstream's runner sends them.

The facts are read off what the attempt will install: the skills `inject_skills` copies (base
skills and the task's own), the desktop and its browser when the task is headed."""

from __future__ import annotations

import hashlib

from clawmark.attempts.closed_loop_config import ClosedLoopAttemptConfig
from clawmark.catalog.task import ClosedLoopTask
from clawmark.claws import ClawAdapter
from clawmark.claws.preamble import RuntimeFacts, compose_preamble, first_prompt
from clawmark.taskenv.config import base_skills_for
from clawmark.taskenv.desktop import CDP_PORT, wants_desktop
from clawmark.taskenv.container_layout import RESULTS_DIR, SKILLS_DIR, SOURCES_DIR, WORKSPACE

DESKTOP_SCREEN = (1440, 900)  # images/desktop: Xvfb's screen (clawmark.taskenv.desktop records at this size)


def runtime_facts(task: ClosedLoopTask, config: ClosedLoopAttemptConfig) -> RuntimeFacts:
    headed = wants_desktop(task)
    base = base_skills_for(task, config.base_skills)  # None: upstream's for upstream-layout tasks
    skills = sorted({folder.name for folder in base} | set(task.skill_dirs))
    return RuntimeFacts(workspace=WORKSPACE, sources_dir=SOURCES_DIR, results_root=RESULTS_DIR, skills_dir=SKILLS_DIR,
                        skills=skills, screen=DESKTOP_SCREEN if headed else None,
                        browser_url=f"http://127.0.0.1:{CDP_PORT}" if headed else None)


def executor_preamble(task: ClosedLoopTask, claw: ClawAdapter, config: ClosedLoopAttemptConfig) -> str:
    """The runtime facts and the claw's note; "" when the attempt sends the bare task."""
    if not config.runtime_preamble:
        return ""
    return first_prompt(compose_preamble(runtime_facts(task, config)), claw.routing_note, "")


def first_message(task: ClosedLoopTask, claw: ClawAdapter, config: ClosedLoopAttemptConfig) -> str:
    text = task.prompt(config.snapshot)
    preamble = executor_preamble(task, claw, config)
    return first_prompt(preamble, "", text) if preamble else text


def preamble_digest(task: ClosedLoopTask, claw: ClawAdapter, config: ClosedLoopAttemptConfig) -> str:
    """For the cell key: another wording, skill or display re-keys the cell."""
    return hashlib.sha256(executor_preamble(task, claw, config).encode()).hexdigest()[:16]
