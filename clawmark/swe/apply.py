"""The apply chain of the evaluator (Claw-SWE-Bench order), with a reset before every retry.

Each try starts from the tree the container started with: `git reset --hard` to HEAD (the base
in a fresh instance container) and `git clean -fd` (not `-x`: instance images keep installed
dependencies and built extensions as ignored files in /testbed; `.rej`/`.orig` leftovers of a
failed try are untracked and do go).
"""

from __future__ import annotations

from dataclasses import dataclass

from clawmark.runtime.exec_target import ExecTarget
from clawmark.swe.history_strip import REPO_DIR
from clawmark.swe.shell import q, run_step

APPLY_TIMEOUT_S = 120.0
RESET_CMD = "git reset -q --hard HEAD && git clean -fdq"
APPLY_CHAIN: tuple[tuple[str, str], ...] = (
    ("git apply", "git apply --verbose {patch}"),
    ("git apply --3way", "git apply --verbose --3way {patch}"),
    ("git apply --reject", "git apply --verbose --reject {patch}"),
    # --no-backup-if-mismatch: a fuzzy success would otherwise leave `*.orig` files in the tree.
    ("patch --fuzz=5", "patch --batch --forward --fuzz=5 --no-backup-if-mismatch -p1 -i {patch}"),
)


@dataclass(frozen=True)
class ApplyResult:
    """`method` is the first command that applied the whole patch (None: nothing did)."""

    method: str | None
    log: str

    @property
    def applied(self) -> bool:
        return self.method is not None


def apply_patch(shell: ExecTarget, patch_path: str, workdir: str = REPO_DIR) -> ApplyResult:
    """Try each command of the chain until one exits 0; the tree is reset before each retry."""
    log: list[str] = []
    for attempt, (name, template) in enumerate(APPLY_CHAIN):
        if attempt:
            run_step(shell, "reset before retry", RESET_CMD, APPLY_TIMEOUT_S, workdir)
        result = shell.exec(template.format(patch=q(patch_path)), timeout_s=APPLY_TIMEOUT_S, workdir=workdir)
        log.append(f"$ {name} (exit {result.exit_code})\n{result.stdout}{result.stderr}")
        if result.exit_code == 0 and not result.timed_out:
            return ApplyResult(name, "\n".join(log))
    run_step(shell, "reset after failed chain", RESET_CMD, APPLY_TIMEOUT_S, workdir)
    return ApplyResult(None, "\n".join(log))
