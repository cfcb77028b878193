"""What `clawmark images build` shows while an image builds: which image (and which of the
images asked for), how far (Dockerfile step k/n, or the rootfs script's phase) and for how long.

It reads the build's own lines (clawmark.runtime.images passes each to a progress callback):
`building REF` starts an image (a parent built first names itself the same way), `Step k/n :`
is the classic builder's step, anything else is detail. In a terminal one live line per image
ticks its elapsed time; without one (make, CI logs) each step is one line. `--verbose` adds
every raw build line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from clawmark.stopwatch import Stopwatch

STEP = re.compile(r"^Step (\d+)/(\d+) : (.*)$")
ROOTFS_PHASE = re.compile(r"^(I: (running|downloading|installing|success)|importing )")
STARTED = re.compile(r"^building (\S+)")
DETAIL_CHARS = 70


@dataclass
class ImageBuild:
    ref: str
    watch: Stopwatch = field(default_factory=Stopwatch)
    step: int = 0
    steps: int = 0
    doing: str = ""

    def elapsed(self) -> str:
        minutes, seconds = divmod(int(self.watch.elapsed()), 60)
        return f"{minutes}m{seconds:02d}s"

    def line(self, label: str) -> str:
        where = f"step {self.step}/{self.steps} " if self.steps else ""
        return f"{label} {self.ref}: {where}{self.doing[:DETAIL_CHARS]} ({self.elapsed()})"


class BuildView:
    """The progress callback of one `images build` run: `view.line(raw)` per build line."""

    def __init__(self, console, label: str, *, verbose: bool = False) -> None:
        self.console, self.label, self.verbose = console, label, verbose
        self.current: ImageBuild | None = None
        self.live = None

    def __enter__(self) -> "BuildView":
        if self.console.is_terminal:
            from rich.live import Live

            self.live = Live("", console=self.console, refresh_per_second=2, get_renderable=self._render)
            self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)

    def _render(self):
        from rich.text import Text  # a step's text is the Dockerfile's, never markup

        return Text(self.current.line(self.label) if self.current else f"{self.label} starting")

    def line(self, raw: str) -> None:
        if self.verbose:
            self._print(raw)
        if started := STARTED.match(raw):
            self.current = ImageBuild(started.group(1))
            return
        if self.current is None:
            return
        if step := STEP.match(raw):
            self.current.step, self.current.steps = int(step.group(1)), int(step.group(2))
            self.current.doing = " ".join(step.group(3).split())
            if not self.console.is_terminal and not self.verbose:
                self._print(self.current.line(self.label))
        elif not self.current.steps:  # a rootfs script: its own lines are the phases
            self.current.doing = " ".join(raw.split())
            if not self.console.is_terminal and not self.verbose and ROOTFS_PHASE.match(raw):
                self._print(self.current.line(self.label))

    def _print(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, emoji=False, soft_wrap=True)
