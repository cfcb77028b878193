"""A module's file name says what it holds: two modules of the shipped packages share a name only
when they hold the same kind of thing (each room's errors, a CLI command named after what it runs),
never for two unrelated things (the judge's information firewall beside the runtime's iptables
chains sent readers to the wrong file). A new shared name needs a line in SAME_KIND, or a rename."""

from __future__ import annotations

from collections import defaultdict

from tests.support.paths import REPO

SHIPPED = ("clawmark", "flows", "analysis", "blocks")
SAME_KIND = {
    "errors.py": "each room's typed errors (and the ground floor's marker bases)",
    "config.py": "a room's pydantic configuration",
    "base.py": "the base of a plug-in family: claw adapters, SWE log parsers",
    "registry.py": "the look-up of a plug-in family by name: claws, SWE log parsers",
    "genericagent.py": "one claw: its adapter in claws/, its session reader in claws/transcripts/",
    "openclaw.py": "one claw: its adapter in claws/, its session reader in claws/transcripts/",
    "images.py": "cli/: the `images` command over runtime's images",
    "swe.py": "cli/: the `swe` command over the catalog's SWE instances",
    "rejudge.py": "cli/: the `rejudge` command over attempts' re-judging",
    "server.py": "cli/: the `server` command; gateway/: the gateway's server",
    "sweep.py": "cli/: the `sweep` command, flows/: the sweep flow it starts",
    "closed_loop.py": "the closed-loop track: its attempt and its analysis",
    "usage.py": "tokens and cost: one row's per role (results), a configuration's (analysis)",
    "outcome.py": "an attempt's outcome per track (attempts: patch, judge: closed loop); issue 22 item 2 makes it one",
}


def shared_names() -> dict[str, list[str]]:
    where = defaultdict(list)
    for package in SHIPPED:
        for path in (REPO / package).rglob("*.py"):
            if path.name != "__init__.py":
                where[path.name].append(str(path.relative_to(REPO)))
    return {name: sorted(paths) for name, paths in where.items() if len(paths) > 1}


def test_no_two_modules_share_a_name_for_different_things():
    unexplained = {name: paths for name, paths in shared_names().items() if name not in SAME_KIND}
    assert unexplained == {}, f"same file name in two places (rename one, or say in SAME_KIND why not): {unexplained}"
    assert "firewall.py" not in shared_names() and len(list((REPO / "clawmark").rglob("*.py"))) > 100
