"""Strip every trace of history past the base commit, then prove it is gone.

Agents do read fixes from `git log --all`, a stash, a reflog or a dangling object, so the
repository is cut down to "the base commit and its ancestors" and then checked three ways:
refs and reflogs, the commits `git log --all` reaches, and every object in the object store
(all must be reachable from the base). The check needs no knowledge of the fix; when the fix
commits are known they are probed too (`git cat-file -e` must fail). Anything left ⇒ `HistoryLeak`.

Reset uses `git clean -fd`, not `-fdx`: real SWE-bench images keep built extensions and installed
dependencies (ignored files) inside /testbed, and `-x` would wipe them.
"""

from __future__ import annotations

from collections.abc import Iterable

from clawmark.runtime.exec_target import ExecTarget
from clawmark.swe.errors import HistoryLeak
from clawmark.swe.shell import q, run_step

REPO_DIR = "/testbed"
STEP_TIMEOUT_S = 600.0

# Build output agents leave behind; kept out of `git add -A` for every language.
GLOBAL_GITIGNORE = "*.class\n/target/\nnode_modules/\n__pycache__/\n*.pyc\n*.pyo\n.pytest_cache/\n"

_STRIP = r"""
set -euo pipefail
base=$(git rev-parse --verify @BASE@^{commit})
git reset -q --hard "$base"
git clean -fdq
git checkout -q --detach "$base"
git worktree prune; rm -rf .git/worktrees
for r in $(git remote); do git remote remove "$r"; done
git for-each-ref --format='%(refname)' | while IFS= read -r ref; do git update-ref --no-deref -d "$ref"; done
{ git config --name-only --get-regexp '^branch\.' || true; } | sed 's/\.[^.]*$//' | sort -u \
  | while IFS= read -r s; do git config --remove-section "$s"; done
git checkout -q -b @BRANCH@
rm -rf .git/ORIG_HEAD .git/FETCH_HEAD .git/MERGE_HEAD .git/CHERRY_PICK_HEAD .git/REVERT_HEAD \
  .git/AUTO_MERGE .git/BISECT_* .git/rebase-merge .git/rebase-apply .git/refs/original .git/rr-cache \
  .git/COMMIT_EDITMSG .git/MERGE_MSG .git/SQUASH_MSG .git/info/refs .git/gitk.cache .git/info/grafts
if [ -s .git/objects/info/alternates ]; then git repack -a -d -q; rm -f .git/objects/info/alternates; fi
rm -f .git/objects/pack/*.keep
git reflog expire --expire=now --expire-unreachable=now --all
git -c gc.reflogExpire=now -c gc.reflogExpireUnreachable=now -c gc.pruneExpire=now \
  -c gc.worktreePruneExpire=now -c repack.updateServerInfo=false gc --prune=now --quiet
git pack-refs --all --prune
rm -rf .git/logs .git/info/refs
"""

_VERIFY = r"""
set -uo pipefail
base=$(git rev-parse --verify -q @BASE@^{commit}) || { echo "LEAK base commit @BASE@ is not in the repository"; exit 0; }
anc=$(mktemp); objs=$(mktemp); trap 'rm -f "$anc" "$objs"' EXIT
git rev-list "$base" | sort -u > "$anc"
head=$(git rev-parse -q --verify HEAD); [ "$head" = "$base" ] || echo "LEAK HEAD is $head, not the base"
git for-each-ref --format='%(objectname) %(refname)' | while read -r sha ref; do
  [ "$sha" = "$base" ] || echo "LEAK ref $ref points at $sha"; done
git log --all --format=%H | sort -u | comm -23 - "$anc" | head -20 | sed 's/^/LEAK git log --all shows commit /'
git reflog show --all --format=%H 2>/dev/null | sort -u | comm -23 - "$anc" | head -20 \
  | sed 's/^/LEAK reflog holds commit /'
[ -z "$(git stash list 2>/dev/null)" ] || echo "LEAK stash entries present"
for f in FETCH_HEAD ORIG_HEAD MERGE_HEAD COMMIT_EDITMSG MERGE_MSG info/refs; do
  [ ! -e ".git/$f" ] || echo "LEAK .git/$f present"; done
git rev-list --objects "$base" | cut -d' ' -f1 | sort -u > "$objs"
git cat-file --batch-all-objects --batch-check='%(objectname)' | sort -u | comm -23 - "$objs" | head -20 \
  | sed 's/^/LEAK object not reachable from the base: /'
for sha in @KNOWN@; do git cat-file -e "$sha^{object}" 2>/dev/null && echo "LEAK fix object $sha present"; done
true
"""


def _fill(script: str, **words: str) -> str:
    for key, value in words.items():
        script = script.replace(f"@{key}@", value)
    return script


def strip_script(base_commit: str, branch: str = "main") -> str:
    """The bash script that strips the repository in the current folder to `base_commit`."""
    return _fill(_STRIP, BASE=q(base_commit), BRANCH=q(branch))


def strip_history(shell: ExecTarget, base_commit: str, branch: str = "main", workdir: str = REPO_DIR) -> None:
    """Reset to the base and delete every ref, remote, reflog and object past it."""
    run_step(shell, "strip history", strip_script(base_commit, branch), STEP_TIMEOUT_S, workdir)


def find_leaks(shell: ExecTarget, base_commit: str, known_future: Iterable[str] = (),
               workdir: str = REPO_DIR) -> list[str]:
    """Everything in the repository that reveals history past the base (empty list = clean)."""
    return _leaks(run_step(shell, "verify history", _verify_script(base_commit, known_future), STEP_TIMEOUT_S,
                           workdir))


def _verify_script(base_commit: str, known_future: Iterable[str]) -> str:
    return _fill(_VERIFY, BASE=q(base_commit), KNOWN=" ".join(q(sha) for sha in known_future))


def _leaks(output: str) -> list[str]:
    return [line.removeprefix("LEAK ").strip() for line in output.splitlines() if line.startswith("LEAK ")]


def verify_history(shell: ExecTarget, base_commit: str, known_future: Iterable[str] = (),
                   workdir: str = REPO_DIR) -> None:
    """Raise `HistoryLeak` unless nothing past the base is reachable."""
    findings = find_leaks(shell, base_commit, known_future, workdir)
    if findings:
        raise HistoryLeak(base_commit, findings)


def prepare_history(shell: ExecTarget, base_commit: str, known_future: Iterable[str] = (),
                    workdir: str = REPO_DIR, first: str | None = None) -> None:
    """Strip, then verify, in one exec (each costs a container round trip); an instance whose
    history still leaks is refused (`HistoryLeak`). `first`: a command run before, in the same
    exec (`global_gitignore_command()`)."""
    strip = strip_script(base_commit)
    verify = _verify_script(base_commit, known_future)
    script = f"{first + ' && ' if first else ''}( {strip} ) && {{ {verify} }}"
    findings = _leaks(run_step(shell, "prepare history", script, STEP_TIMEOUT_S, workdir))
    if findings:
        raise HistoryLeak(base_commit, findings)


def global_gitignore_command(path: str = "/etc/clawmark-gitignore") -> str:
    """System-wide excludes so build output never reaches `git add -A` (any user the claw runs as);
    needs root."""
    return (f"printf %s {q(GLOBAL_GITIGNORE)} > {q(path)} && git config --system core.excludesFile {q(path)}"
            " && git config --system --replace-all safe.directory '*'")
