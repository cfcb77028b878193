"""Point code merged from other branches at the modules' new names (issue 22 item 6).

    python scripts/follow_renames.py [--dry-run]

git follows a renamed file through a merge, but not a new line elsewhere that imports it by its
old name. This rewrites, in every tracked text file, the old dotted names (`clawmark.judge.firewall`)
and paths (`clawmark/judge/firewall.py`, `judge/firewall.py`) of RENAMED to the new ones, and
lists what it cannot rewrite safely: `from clawmark.runtime import firewall` (the module bound
to its old short name; rename its uses by hand). Idempotent.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from tree_rewrite import Substitution, moved_file_substitutions, rewrite_tracked

RENAMED = {
    "clawmark/judge/firewall.py": "clawmark/judge/info_firewall.py",
    "clawmark/runtime/firewall.py": "clawmark/runtime/host_firewall.py",
    "clawmark/catalog/checks.py": "clawmark/catalog/check_specs.py",
    "clawmark/claws/chat.py": "clawmark/gateway/http_chat.py",
    "flows/stages.py": "flows/sweep_tasks.py",
    "clawmark/runtime/archive.py": "clawmark/runtime/tar_transfer.py",
    "clawmark/runtime/build.py": "clawmark/runtime/docker_build.py",
    "clawmark/swe/history.py": "clawmark/swe/history_strip.py",
    "clawmark/swe/patch.py": "clawmark/swe/patch_extract.py",
    "clawmark/swe/grading.py": "clawmark/swe/log_grading.py",
    "clawmark/swe/report.py": "clawmark/swe/swebench_report.py",
    "clawmark/sweeps/preflight.py": "clawmark/sweeps/cell_preflight.py",
    "clawmark/gateway/preflight.py": "clawmark/gateway/provider_preflight.py",
    "clawmark/catalog/credentials.py": "clawmark/catalog/task_credentials.py",
    "clawmark/webproxy/session.py": "clawmark/webproxy/proxied_task.py",
    "clawmark/sweeps/gateway.py": "clawmark/sweeps/shared_gateway.py",
    "clawmark/claws/transcripts/files.py": "clawmark/claws/transcripts/session_files.py",
    "clawmark/taskenv/layout.py": "clawmark/taskenv/container_layout.py",
    "clawmark/taskenv/package.py": "clawmark/taskenv/package_guard.py",
}


def substitutions() -> list[Substitution]:
    subs = []
    for old, new in RENAMED.items():
        short_old, short_new = "/".join(old.split("/")[-2:]), "/".join(new.split("/")[-2:])
        subs += [*moved_file_substitutions(old, new),
                 (re.compile(r"(?<![\w./])" + re.escape(short_old) + r"(?!\w)"), short_new)]
    return subs


def bound_by_old_name(text: str) -> list[str]:
    found = []
    for old in RENAMED:
        package, name = old[:-3].replace("/", ".").rsplit(".", 1)
        pattern = re.compile(rf"^\s*from {re.escape(package)} import [^\n#]*\b{name}\b[^\n]*", re.M)
        found += [m.group(0).strip() for m in pattern.finditer(text)]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="list the files, change nothing")
    args = parser.parse_args()
    for name, new_text, changed in rewrite_tracked(substitutions(), skip=Path(__file__), write=not args.dry_run):
        if changed:
            print(f"rewrote {name}")
        for line in bound_by_old_name(new_text):
            print(f"by hand: {name}: {line}")

if __name__ == "__main__":
    main()
