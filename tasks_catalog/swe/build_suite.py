"""Build the bundled patch-task suite from plain-file sources, deterministically.

Sources: `repos/<name>/repo.yaml` (metadata, issue text, expected tests) and
`repos/<name>/commits/<NN-slug>/` (the files that commit adds or changes, full contents).
For each repo this script replays the commits into a fresh git repository with a fixed
author, committer and dates (so the SHAs never change), writes `bundles/<name>.bundle`
(all refs, including the fix commit AFTER the base commit, so history cleanup is exercised),
and regenerates `instances.jsonl` in SWE-bench 5.x format plus clawmark extras.

    .venv/bin/python tasks_catalog/swe/build_suite.py            # rebuild in place
    .venv/bin/python tasks_catalog/swe/build_suite.py --out DIR  # build elsewhere (checks)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import yaml

SUITE_DIR = Path(__file__).resolve().parent
SUITES_DIR = SUITE_DIR.parent / "suites"
AUTHOR_NAME = "Clawmark Fixtures"
AUTHOR_EMAIL = "fixtures@clawmark.invalid"
HEREDOC = "EOF_114329324912"  # the delimiter real SWE-bench eval scripts use
GIT_TIMEOUT_S = 60

TEST_FILE_PATTERNS = {
    "python": r"^tests/",
    "javascript": r"^test/",
    "go": r"_test\.go$",
    "rust": r"^tests/|(^|/)tests\.rs$",
}
LOG_PARSERS = {
    "python": "parse_log_pytest",
    "javascript": "parse_log_tap",
    "go": "parse_log_gotest",
    "rust": "parse_log_cargo",
}
TEST_CMDS = {
    "python": "PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -rA -p no:cacheprovider tests",
    "javascript": "node --test --test-reporter=tap",
    "go": "GOPROXY=off go test -v -count=1 ./...",
    "rust": "cargo test --offline --no-fail-fast -- --test-threads=1",
}


class SuiteSourceError(ValueError):
    """A repo.yaml or commit folder is malformed; the message names the file and field."""


def git(repo: Path, *args: str, when: datetime | None = None) -> str:
    """Run git hermetically (no user/system config) with the fixed identity and date."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": AUTHOR_NAME, "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
        "GIT_COMMITTER_NAME": AUTHOR_NAME, "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
        "TZ": "UTC", "LC_ALL": "C",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    done = subprocess.run(["git", "-c", "core.autocrlf=false", "-c", "pack.threads=1", *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout


def load_spec(repo_dir: Path) -> dict:
    spec_file = repo_dir / "repo.yaml"
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    for field in ("name", "language", "start_date", "commits", "base", "fix", "problem_statement",
                  "FAIL_TO_PASS", "PASS_TO_PASS"):
        if field not in spec:
            raise SuiteSourceError(f"{spec_file}: field {field!r} is missing")
    if spec["language"] not in LOG_PARSERS:
        raise SuiteSourceError(f"{spec_file}: field 'language' must be one of {sorted(LOG_PARSERS)}")
    dirs = [c["dir"] for c in spec["commits"]]
    for field in ("base", "fix"):
        if spec[field] not in dirs:
            raise SuiteSourceError(f"{spec_file}: field {field!r} must name one of the commit dirs {dirs}")
    if dirs.index(spec["fix"]) <= dirs.index(spec["base"]):
        raise SuiteSourceError(f"{spec_file}: field 'fix' must come after 'base'")
    return spec


def replay_commits(spec: dict, repo_dir: Path, work: Path) -> dict[str, str]:
    """Create the git repo in `work`; returns commit dir name -> SHA."""
    git(work, "init", "-q", "-b", "main")
    start = datetime.fromisoformat(spec["start_date"])
    shas: dict[str, str] = {}
    for index, commit in enumerate(spec["commits"]):
        overlay = repo_dir / "commits" / commit["dir"]
        if not overlay.is_dir():
            raise SuiteSourceError(f"{repo_dir / 'repo.yaml'}: commit dir {overlay} does not exist")
        for source in sorted(p for p in overlay.rglob("*") if p.is_file()):
            target = work / source.relative_to(overlay)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
        for gone in commit.get("delete", []):
            (work / gone).unlink()
        git(work, "add", "-A")
        git(work, "commit", "-q", "-m", commit["message"], when=start + timedelta(days=index, hours=index))
        shas[commit["dir"]] = git(work, "rev-parse", "HEAD").strip()
    for tag, commit_dir in spec.get("tags", {}).items():
        git(work, "tag", tag, shas[commit_dir])
    for branch, commit_dir in spec.get("branches", {}).items():
        git(work, "branch", branch, shas[commit_dir])
    return shas


def split_fix(spec: dict, work: Path, base: str, fix: str) -> tuple[str, str, list[str]]:
    """(gold patch, test patch, test files that already exist at base) of base..fix."""
    pattern = re.compile(TEST_FILE_PATTERNS[spec["language"]])
    changed = git(work, "diff", "--name-only", base, fix).split()
    tests = [p for p in changed if pattern.search(p)]
    sources = [p for p in changed if not pattern.search(p)]
    if not tests or not sources:
        raise SuiteSourceError(f"{spec['name']}: the fix commit must change both source and test files")
    at_base = set(git(work, "ls-tree", "-r", "--name-only", base).split())
    diff = ("diff", "--no-color", "--no-ext-diff", base, fix, "--")
    return git(work, *diff, *sources), git(work, *diff, *tests), [p for p in tests if p in at_base]


def eval_script(base: str, test_files: list[str], test_patch: str, test_cmd: str) -> str:
    """Mirror of a real SWE-bench 5.x eval script, plus the test command's exit code."""
    checkout = f"git checkout {base} {' '.join(test_files)}\n" if test_files else ""
    return (
        "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n"
        "git config --global --add safe.directory /testbed\n"
        f"git status\ngit show\ngit -c core.fileMode=false diff {base}\n"
        f"{checkout}git apply -v - <<'{HEREDOC}'\n{test_patch}\n{HEREDOC}\n"
        "echo '>>>>> Start Test Output'\n"
        f"{test_cmd}\nrc=$?\n"
        "echo '>>>>> End Test Output'\n"
        'echo "clawmark:test_exit_code=$rc"\n'
        f"{checkout}"
    )


def instance_row(spec: dict, shas: dict[str, str], work: Path) -> dict:
    base, fix = shas[spec["base"]], shas[spec["fix"]]
    patch, test_patch, test_files = split_fix(spec, work, base, fix)
    language = spec["language"]
    test_cmd = spec.get("test_cmd", TEST_CMDS[language])
    fix_index = [c["dir"] for c in spec["commits"]].index(spec["fix"])
    created = datetime.fromisoformat(spec["start_date"]) + timedelta(days=fix_index, hours=fix_index)
    return {
        "repo": f"clawmark-fixtures/{spec['name']}",
        "instance_id": f"clawmark-fixtures__{spec['name']}-{spec.get('number', 1)}",
        "base_commit": base,
        "patch": patch,
        "test_patch": test_patch,
        "problem_statement": spec["problem_statement"],
        "hints_text": "",
        "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "version": str(spec.get("version", "")),
        "FAIL_TO_PASS": list(spec["FAIL_TO_PASS"]),
        "PASS_TO_PASS": list(spec["PASS_TO_PASS"]),
        "environment_setup_commit": base,
        "log_parser": LOG_PARSERS[language],
        "eval_type": "pass_and_fail",
        "image": None,
        "eval_script": eval_script(base, test_files, test_patch, test_cmd),
        "language": language,
        "test_cmd": test_cmd,
        "repo_bundle": f"bundles/{spec['name']}.bundle",
        "image_recipe": None,  # nothing beyond the runtime image and the repo at /testbed
        "runtime_image": language if language != "javascript" else "node",
        "fix_commit": fix,
    }


def build_repo(repo_dir: Path, out: Path) -> dict:
    spec = load_spec(repo_dir)
    with tempfile.TemporaryDirectory(prefix=f"swe-{spec['name']}-") as tmp:
        work = Path(tmp)
        shas = replay_commits(spec, repo_dir, work)
        row = instance_row(spec, shas, work)
        bundle = out / row["repo_bundle"]
        bundle.parent.mkdir(parents=True, exist_ok=True)
        bundle.unlink(missing_ok=True)
        git(work, "bundle", "create", "-q", str(bundle), "--all")
    return row


def build_suite(out: Path, sources: Path = SUITE_DIR / "repos") -> list[dict]:
    """Build every repo under `sources` into `out`; returns the instance rows written."""
    out.mkdir(parents=True, exist_ok=True)
    repo_dirs = [d for d in sorted(sources.iterdir()) if (d / "repo.yaml").is_file()]
    rows = [build_repo(d, out) for d in repo_dirs]
    smoke = {row["instance_id"] for d, row in zip(repo_dirs, rows) if load_spec(d).get("smoke")}
    lines = "".join(json.dumps(row, sort_keys=False) + "\n" for row in rows)
    (out / "instances.jsonl").write_text(lines, encoding="utf-8")
    write_suites(rows, out / "suites" if out.resolve() != SUITE_DIR else SUITES_DIR, smoke)
    return rows


def write_suites(rows: list[dict], folder: Path, smoke: set[str]) -> None:
    """swe-mini: every bundled instance; swe-smoke: the `smoke: true` one of each language."""
    folder.mkdir(parents=True, exist_ok=True)
    suites = {
        "swe-mini": ("Every bundled patch task (tasks_catalog/swe/instances.jsonl), all languages.",
                     [r["instance_id"] for r in rows]),
        "swe-smoke": ("One bundled patch task per language, for quick end-to-end checks.",
                      [r["instance_id"] for r in rows if r["instance_id"] in smoke]),
    }
    for name, (description, ids) in suites.items():
        suite = {"name": name, "description": description, "track": "patch", "tasks": ids}
        text = "# Generated by tasks_catalog/swe/build_suite.py; edit the repo.yaml files instead.\n"
        (folder / f"{name}.yaml").write_text(text + yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SUITE_DIR, help="where bundles/ and instances.jsonl go")
    args = parser.parse_args()
    rows = build_suite(args.out.resolve())
    for row in rows:
        print(f"{row['instance_id']}: base {row['base_commit'][:12]} fix {row['fix_commit'][:12]}")


if __name__ == "__main__":
    main()
