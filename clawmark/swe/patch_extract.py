"""Taking the patch a claw left in the repository (the runner takes it; the agent never reports it).

`git add -A`; unstage every file git or `file` calls binary (reset its index entry to the base,
so a binary the agent committed goes too); `git diff --no-color --cached BASE`; then clean the
diff by whole file sections (`patch_clean`). The raw diff is kept beside the clean one.

The diff runs with explicit prefixes and without external diff drivers or textconv: the agent
controls `.git/config` and `.gitattributes`, and must not be able to change the patch format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clawmark.runtime.exec_target import ExecTarget
from clawmark.swe.errors import PatchTooLarge, ShellStepFailed
from clawmark.swe.history_strip import REPO_DIR
from clawmark.swe.patch_clean import clean_patch
from clawmark.swe.shell import q, run_step

MAX_PATCH_BYTES = 10 * 1024 * 1024
INLINE_BYTES = 256 * 1024  # well under every exec target's output cap (a sandbox keeps 1 MiB)
STEP_TIMEOUT_S = 300.0
_FILE_MIN_BYTES = 8
_CHUNK = 200  # paths per `file` / `git reset` call, well under ARG_MAX
_DIFF = ("git -c core.quotePath=true -c diff.noprefix=false -c diff.mnemonicPrefix=false "
         "diff --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/")


@dataclass(frozen=True)
class ExtractedPatch:
    """`clean` goes to predictions; `raw` is kept for audit; `dropped_files` maps path -> reason."""

    clean: str
    raw: str
    dropped_files: dict[str, str] = field(default_factory=dict)
    unstaged_binaries: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.clean.strip()


def extract_patch(shell: ExecTarget, base_commit: str, workdir: str = REPO_DIR,
                  max_bytes: int = MAX_PATCH_BYTES) -> ExtractedPatch:
    """Stage everything, unstage binaries, diff the index against the base, clean the diff."""
    nested, numstat, staged_diff = _stage_everything(shell, base_commit, workdir)
    binaries = staged_binaries(numstat, shell, workdir)
    if binaries:  # the diff taken with them staged is not the patch
        _discard_diff(shell, staged_diff, workdir)
        for chunk in _chunks(binaries):
            run_step(shell, "unstage binaries", f"git --literal-pathspecs reset -q {q(base_commit)} -- {_words(chunk)}",
                     STEP_TIMEOUT_S, workdir)
        staged_diff = run_step(shell, "git diff", _diff_script(base_commit), STEP_TIMEOUT_S, workdir)
    raw = _read_diff(shell, staged_diff, workdir, max_bytes)
    cleaned = clean_patch(raw)
    dropped = {**{path: "nested repository" for path in nested}, **cleaned.dropped_files}
    return ExtractedPatch(cleaned.clean, raw, dropped, tuple(binaries))


def _stage_everything(shell: ExecTarget, base_commit: str, workdir: str) -> tuple[list[str], str, str]:
    """One exec (each costs a container round trip): exclude nested repositories, `git add -A`,
    the staged numstat, and the staged diff, which is the patch unless a binary is to be
    unstaged. Claws leave `git init`-ed folders (their workspace, memory); `git add -A` fails on
    one with no commit and would record a gitlink otherwise. Returns (the nested folders
    excluded, the numstat, the diff script's output). A NUL, which no path holds, ends the
    folders; the numstat's entry count comes next, as the numstat ends with no mark of its own
    and a diff may hold NULs."""
    script = ("mkdir -p .git/info && find . -mindepth 2 -name .git -not -path './.git/*' -prune -print0 | "
              "while IFS= read -r -d '' g; do d=${g#./}; d=${d%/.git}; "
              "printf '/%s/\\n' \"$d\" >> .git/info/exclude; printf '%s\\n' \"$d\"; done "
              "&& git add -A && printf '\\0' && ns=$(mktemp) "
              f"&& git diff --cached --no-renames --numstat -z {q(base_commit)} > \"$ns\" "
              "&& tr -cd '\\000' < \"$ns\" | wc -c && cat \"$ns\" && rm -f \"$ns\" && " + _diff_script(base_commit))
    nested, _, rest = run_step(shell, "stage the work", script, STEP_TIMEOUT_S, workdir).partition("\0")
    count, _, rest = rest.partition("\n")
    if not count.strip().isdigit():  # the container's tools are the claw's: say what came back
        raise ShellStepFailed("stage the work", 0, f"expected the numstat's entry count, got {count[:80]!r}")
    *entries, staged_diff = rest.split("\0", int(count))
    return nested.splitlines(), "\0".join(entries), staged_diff


def _diff_script(base_commit: str) -> str:
    """The staged diff, written to a temp file first: a diff up to INLINE_BYTES comes back in the
    same exec, a larger one is read back as a file (an exec's output is capped)."""
    return (f"f=$(mktemp) && {_DIFF} --cached {q(base_commit)} > \"$f\" && n=$(wc -c < \"$f\") && "
            f"if [ \"$n\" -le {INLINE_BYTES} ]; then printf '%s -\\n' \"$n\"; cat \"$f\"; rm -f \"$f\"; "
            "else printf '%s %s\\n' \"$n\" \"$f\"; fi")


def _read_diff(shell: ExecTarget, output: str, workdir: str, max_bytes: int) -> str:
    """The diff `_diff_script` printed or left in a file (the file is removed either way)."""
    head, _, inline = output.partition("\n")
    size, path = head.split(" ", 1)
    try:
        if int(size) > max_bytes:
            raise PatchTooLarge(int(size), max_bytes)
        return inline if path == "-" else shell.read_file(path).decode("utf-8", errors="replace")  # JSON text
    finally:
        _discard_diff(shell, output, workdir)


def _discard_diff(shell: ExecTarget, output: str, workdir: str) -> None:
    """Remove the file a `_diff_script` output points to; an inline diff's file is already gone."""
    path = output.partition("\n")[0].split(" ", 1)[1]
    if path != "-":
        shell.exec(f"rm -f {q(path)}", timeout_s=30, workdir=workdir)


def staged_binaries(numstat: str, shell: ExecTarget, workdir: str = REPO_DIR) -> list[str]:
    """Staged paths the numstat (`git diff --cached --numstat -z`) marks `-\t-` or `file
    --mime-encoding` calls binary."""
    entries = [entry.split("\t", 2) for entry in numstat.split("\0") if entry.count("\t") >= 2]
    binary = [path for added, deleted, path in entries if added == "-" and deleted == "-"]
    texts = [path for added, deleted, path in entries if not (added == "-" and deleted == "-")]
    for chunk in _chunks(texts):
        binary += _file_says_binary(shell, chunk, workdir)
    return binary


def _file_says_binary(shell: ExecTarget, paths: list[str], workdir: str) -> list[str]:
    """`file -b --mime-encoding` per path (one line each, in order). Deleted, symlinked and tiny
    files are skipped: `file` calls anything under a few bytes binary (an empty `__init__.py`, a
    one-character file); git's own NUL check (numstat) still covers those."""
    script = (f"for p in {_words(paths)}; do if [ -f \"$p\" ] && [ ! -L \"$p\" ] "
              f"&& [ \"$(wc -c < \"$p\")\" -ge {_FILE_MIN_BYTES} ]; "
              "then file -b --mime-encoding -- \"$p\"; else echo absent; fi; done")
    answers = run_step(shell, "file --mime-encoding", script, STEP_TIMEOUT_S, workdir).splitlines()
    return [path for path, answer in zip(paths, answers) if answer.strip() == "binary"]


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[i:i + _CHUNK] for i in range(0, len(items), _CHUNK)]


def _words(paths: list[str]) -> str:
    return " ".join(q(p) for p in paths)
