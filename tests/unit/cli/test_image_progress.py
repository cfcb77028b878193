"""`clawmark images build` on a fresh machine shows which image builds, how far (step k/n or the
rootfs script's phase) and for how long, instead of silence or raw build logs (issue 16 item 3)."""

from __future__ import annotations

import io

from rich.console import Console

from clawmark.cli.image_progress import BuildView

BUILD = ["building clawmark/base:a04b35fe2839", "I: running debootstrap", "I: retrieving Release",
         "importing 120 MiB as clawmark/base:a04b35fe2839",
         "building clawmark/python:894776e80a24 on clawmark/base:a04b35fe2839", "Step 1/3 : ARG PARENT",
         " ---> Running in 5e1c", "Get:1 http://deb.debian.org bookworm InRelease", "Step 2/3 : RUN apt-get install -y python3",
         "Step 3/3 : LABEL clawmark.recipe=python"]


def _shown(*, terminal: bool, verbose: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=terminal)
    with BuildView(console, "[1/2] python", verbose=verbose) as view:
        for line in BUILD:
            view.line(line)
        if terminal:
            return view._render().plain
    return out.getvalue()


def test_without_a_terminal_each_step_and_phase_is_one_line_naming_the_image():
    lines = _shown(terminal=False).splitlines()
    assert lines[0] == "[1/2] python clawmark/base:a04b35fe2839: I: running debootstrap (0m00s)"
    assert "[1/2] python clawmark/python:894776e80a24: step 2/3 RUN apt-get install -y python3 (0m00s)" in lines
    assert len(lines) == 5 and not any("Get:1" in ln or "---> Running" in ln for ln in lines)  # no raw build log


def test_in_a_terminal_one_live_line_per_image_and_verbose_shows_every_line():
    assert _shown(terminal=True) == "[1/2] python clawmark/python:894776e80a24: step 3/3 LABEL clawmark.recipe=python (0m00s)"
    assert "Get:1 http://deb.debian.org bookworm InRelease" in _shown(terminal=False, verbose=True)
