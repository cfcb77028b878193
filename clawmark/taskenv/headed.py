"""What a headed attempt adds to its task container, and nothing for the others.

`HeadedRun(task, artifacts_dir)`: `begin(sandbox)` after the container is ready (desktop up
with Chromium/CDP, recording started when the task asks; `desktop.json` saved; an upstream-layout
task's desktop already came up before its services, through `before_services()`, as upstream's
runner orders set-up), `turn_end`
after every executor turn (a screenshot `screen.png` in the cycle folder, which the supervisor
is shown), `finish` before teardown (the video to `artifacts/recording.mp4`). A desktop that
does not come up is an infra error (DesktopFailed); a screenshot or video that fails later is
logged and the attempt goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

from clawmark.catalog.needs import task_needs
from clawmark.runtime.images import ensure_image, image_ref
from clawmark.taskenv.desktop import (DESKTOP_RECIPE, DesktopFailed, screenshot, start_desktop,
                                      start_recording, stop_recording, wants_desktop)

SCREEN_FILE = "screen.png"
VIDEO_FILE = "recording.mp4"


BROWSER_RECIPE = "browser"


def task_recipe(task) -> str | None:
    """The image recipe a task needs beyond the workstation: the desktop for headed tasks, the
    headless browser for upstream-layout tasks that need the live web (upstream's container
    has a browser for them, `agent-browser`), None for the others."""
    if wants_desktop(task):
        return DESKTOP_RECIPE

    return BROWSER_RECIPE if task.layout == "uniclaw" and task_needs(task, {}).web else None


def task_image(task, image: str | None) -> str | None:
    """The container image: an explicit one wins, then `task_recipe`'s (built when missing)."""
    recipe = None if image else task_recipe(task)
    if recipe is None:
        return image

    return ensure_image(recipe)


def task_image_ref(task, image: str | None) -> str | None:
    """Like task_image without building (for cell keys); None = the caller's default."""
    recipe = None if image else task_recipe(task)
    if recipe is None:
        return image

    return image_ref(recipe)


def desktop_before_services(task) -> bool:
    """Upstream's runner starts the desktop before the task's services
    (orchestration.initialize_session_container), and its GUI set-up services rely on that: 105_33's
    restarts Xvfb :99 itself. clawmark's own tasks keep services first."""
    return task.layout == "uniclaw"


class HeadedRun:
    def __init__(self, task, artifacts_dir: Path) -> None:
        self.enabled = wants_desktop(task)
        self.desktop_first = self.enabled and desktop_before_services(task)
        self.recording = task.spec.recording
        self.artifacts = Path(artifacts_dir)
        self.recording_on = False
        self.desktop_in: str | None = None  # the container whose desktop is up

    def before_services(self) -> list:
        """TaskEnv hooks that bring the desktop up before the services, for tasks that want that order."""
        return [self.start_desktop] if self.desktop_first else []

    def start_desktop(self, sandbox) -> None:
        """The desktop up in this container, once (`desktop.json` saved)."""
        if self.desktop_in == sandbox.container_id:
            return
        desktop = start_desktop(sandbox, browser=True)
        self.desktop_in = sandbox.container_id
        self.artifacts.mkdir(parents=True, exist_ok=True)
        (self.artifacts / "desktop.json").write_text(json.dumps(
            {**desktop.model_dump(), "recording": self.recording}, indent=2) + "\n")

    def begin(self, sandbox) -> None:
        if not self.enabled:
            return
        self.start_desktop(sandbox)
        if self.recording != "none":
            start_recording(sandbox, self.recording)
            self.recording_on = True

    def turn_end(self, sandbox, cycle_dir: Path) -> Path | None:
        if not self.enabled:
            return None
        try:
            return screenshot(sandbox, Path(cycle_dir) / SCREEN_FILE)
        except (DesktopFailed, OSError) as exc:
            self._log(f"screenshot after {Path(cycle_dir).name}: {exc}")
            return None

    def finish(self, sandbox) -> Path | None:
        if not self.recording_on:
            return None
        self.recording_on = False
        return stop_recording(sandbox, self.artifacts / VIDEO_FILE)

    def _log(self, line: str) -> None:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        with (self.artifacts / "headed-errors.txt").open("a") as log:
            log.write(line + "\n")
