"""What `clawmark doctor` says a machine is ready for: the demo once its images are built (the
Makefile's list), and for every other image, what needs it and the command that builds it.
Missing images are warnings: images are built by name or on demand, so doctor exits 0."""

from __future__ import annotations

import re

from clawmark.cli.doctor import DEMO_IMAGES, _image_check, image_purpose, readiness
from clawmark.runtime.images import ImageStatus
from clawmark.runtime.network import created_at
from clawmark.runtime.recipes import discover
from clawmark.settings import PROJECT_ROOT


def _rows(present: set[str]) -> list[ImageStatus]:
    return [ImageStatus(name=name, ref=f"clawmark/{name}:0123456789ab", present=name in present,
                        size_bytes=2**20 if name in present else None) for name in discover()]


def test_the_demo_images_are_the_makefiles():
    listed = re.search(r"^DEMO_IMAGES := (.+)$", (PROJECT_ROOT / "Makefile").read_text(), re.M)[1].split()
    assert tuple(listed) == DEMO_IMAGES


def test_after_make_demo_alone_the_demo_is_ready_and_each_other_use_names_its_build():
    lines = readiness(_rows({"base", *DEMO_IMAGES}))
    assert lines[0] == "demo: ready (`clawmark demo` or `make demo`)"
    assert "for the openclaw claw: `clawmark images build claw-openclaw`" in lines
    assert "for patch tasks in go/golang: `clawmark images build go`" in lines
    assert "for patch tasks in javascript/node/typescript: `clawmark images build node`" in lines
    desktop = next(line for line in lines if line.endswith("images/desktop/README.md)"))
    assert desktop.startswith("for headed closed-loop tasks (a desktop): `clawmark images build desktop`")
    assert not [line for line in lines if "binary" in line]  # ZeroClaw's README says what it needs
    assert len(lines) == 1 + len(discover()) - len({"base", *DEMO_IMAGES})
    built = ("claw-nanobot", "workstation")  # the demo's: never asked for (a pinned claw-nanobot-<v> may be)
    assert not any(f"images build {name}`" in line for line in lines[1:] for name in built)


def test_a_missing_demo_image_names_the_build_that_readies_the_demo():
    lines = readiness(_rows({"base", "python", "workstation"}))
    assert lines[0] == "demo: needs `clawmark images build claw-nanobot claw-mini-swe-agent` (or `make demo`)"


def test_a_missing_image_is_a_warning_not_a_failure():
    (row,) = [r for r in _rows(set()) if r.name == "claw-zeroclaw"]
    check = _image_check(row)
    assert (check.ok, check.required) == (False, False)
    assert image_purpose("claw-zeroclaw").startswith("for the zeroclaw claw: `clawmark images build claw-zeroclaw`")
    assert image_purpose("base") == ("for the images built on it (claw-zeroclaw, go, node, python, rust): "
                                     "`clawmark images build base`")


def test_network_creation_times_sort_by_their_value_not_their_text():
    # Docker drops a fraction's trailing zeros: ".1Z" is later than ".099Z" but sorts before it as text.
    stamps = ["2026-12-01T23:14:28.1Z", "2026-12-01T23:14:28.099Z", "2026-12-01T23:14:28Z"]
    assert sorted(stamps, key=created_at) == ["2026-12-01T23:14:28Z", "2026-12-01T23:14:28.099Z",
                                              "2026-12-01T23:14:28.1Z"]
