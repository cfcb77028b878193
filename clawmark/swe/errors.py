"""Typed failures of the patch-task runner. Each maps to one outcome status, so an infra failure
is never counted as an unresolved instance (and never the reverse)."""

from __future__ import annotations

from clawmark.errors import Infra, Permanent
from clawmark.runtime.errors import ImageMissing


class SweRunError(Infra):
    """Base of every runner-side patch-task failure."""


class ShellStepFailed(SweRunError):
    """A required git/shell step exited non-zero, timed out or overflowed its output cap."""

    def __init__(self, step: str, exit_code: int | None, detail: str, *, timed_out: bool = False,
                 truncated: bool = False) -> None:
        self.step, self.exit_code, self.detail = step, exit_code, detail
        self.timed_out, self.truncated = timed_out, truncated
        how = "timed out" if timed_out else "output truncated" if truncated else f"exit {exit_code}"
        super().__init__(f"{step}: {how}: {detail.strip()[-500:]}")


class HistoryLeak(SweRunError, Permanent):
    """Commits or objects past the base commit are still reachable: the instance must not run."""

    def __init__(self, base_commit: str, findings: list[str]) -> None:
        self.base_commit, self.findings = base_commit, findings
        shown = "; ".join(findings[:5]) + (f" (+{len(findings) - 5} more)" if len(findings) > 5 else "")
        super().__init__(f"history past {base_commit[:12]} still reachable: {shown}")


class InstanceImageMissing(SweRunError, ImageMissing):
    """The row names an image that is not present locally (real SWE-bench users bring their own).
    Also a runtime `ImageMissing`, so callers catching that one see it too."""

    def __init__(self, instance_id: str, image: str, pull_error: str | None = None) -> None:
        self.instance_id, self.image = instance_id, image
        why = f"and could not be pulled ({pull_error})" if pull_error else "(pull or build it first)"
        super().__init__(f"{instance_id}: image {image!r} is not present locally {why}")


class InstanceUnbuildable(SweRunError, Permanent):
    """Neither an image nor a repository bundle to build one from (or the bundle is unusable)."""

    def __init__(self, instance_id: str, reason: str) -> None:
        self.instance_id, self.reason = instance_id, reason
        super().__init__(f"{instance_id}: cannot build an instance image: {reason}")


class PatchTooLarge(SweRunError, Permanent):
    """The extracted diff exceeds the configured cap (a claw dumped logs or data into the repo)."""

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(f"patch is {size} bytes, over the {limit}-byte cap")


class PredictionsError(SweRunError, Permanent):
    """A predictions file has malformed lines; `problems` holds one `file:line: field: expected ...` each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(problems[0] if len(problems) == 1 else f"{len(problems)} problems, first: {problems[0]}")
