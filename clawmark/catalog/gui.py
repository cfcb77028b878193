"""Does a task need a desktop? Read off what the task declares and says, since upstream's format
has no field for it (upstream's runner gives every task a desktop; clawmark gives one only to the
tasks that need it, so the others do not pay for it).

In order: clawmark's own `gui: true|false` (in the task, or from the upstream overlay, see
overlay.py), a screen recording, a skill that drives the GUI or the browser, a service named for
GUI set-up (`libreoffice-gui-setup`), then the task text asking for a desktop application
(English or Chinese: "real Obsidian desktop app", "DISPLAY=:99", "桌面应用", "日历应用").
On the public release this finds the 27 tasks whose text needs a desktop and no other.
"""

from __future__ import annotations

import re

# Skills that drive the display or the desktop's browser: ours (tasks_catalog/base_skills) and upstream's.
GUI_SKILLS = frozenset({"desktop-control", "browser-control", "linux-gui-control", "agent-browser-control"})
GUI_SERVICE = re.compile(r"(?i)(^|[-_.])(gui|desktop|x11|vnc)([-_.]|$)")
# What a task says when its work happens in a desktop application's window. Kept to phrases
# that name a desktop, a display or an application window: "screenshot" alone is not one
# (a headless browser takes those), nor "GUI" alone (a task may test a GUI's code).
DESKTOP_TEXT = re.compile(
    r"(?i)desktop (?:gui|app(?:lication)?s?)\b"   # "real Zotero desktop app", "desktop GUI workflow"
    r"|\bgui workflow\b"
    r"|\bDISPLAY=:\d+"                            # "use DISPLAY=:99 to launch it"
    r"|\bwindow on the screen\b"
    r"|\breal \w+ (?:desktop )?application\b"     # "the real calendar application"
    r"|桌面\s*(?:GUI|应用|程序)|图形界面|日历应用")


def gui_need(task) -> str | None:
    """What in the task asks for a display (a short reason), or None."""
    spec = task.spec
    if spec.gui is not None:  # a boolean: the catalog refuses any other value at load
        hint = getattr(task, "hints", {}).get("gui")
        return (hint or "gui: true") if spec.gui else None
    if spec.recording != "none":
        return f"recording: {spec.recording}"
    skills = sorted({name.removeprefix("skills/").strip("/") for name in spec.skills} & GUI_SKILLS)
    if skills:
        return f"skill {skills[0]}"
    named = [s.name for s in spec.services if GUI_SERVICE.search(s.name)]
    if named:
        return f"service {named[0]}"
    said = DESKTOP_TEXT.search(spec.task) or DESKTOP_TEXT.search(spec.task_snapshot or "")
    return f"task text {said.group(0)!r}" if said else None
