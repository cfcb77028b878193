"""`clawmark demo` for real (Docker, the real claws, Prefect): its report says what the cassettes
imply, and a second run reuses every cell.

The expected figures are worked out here from the cassettes and the tasks' own data, never with
clawmark's code: a claw plays the cassette variant its tools select (the cassettes README rule);
a patch cell's verdict comes from replaying those tool calls on a host checkout of the task's
repository at its base commit and running the instance's FAIL_TO_PASS + PASS_TO_PASS tests with
the test patch applied (oracle: the gold patch; nop: nothing); a closed-loop cell's from the
summary its calls write, scored against the task's checks, rubric weights, caps and threshold;
a cell's cost is Σ usage × the cassette's price, plus the judge's one call."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SPEC = yaml.safe_load((TASKS_CATALOG / "sweeps" / "demo.yaml").read_text())
CASSETTES = TASKS_CATALOG / "cassettes"
# The tools each claw offers its model (claws/reference.py, the nanobot and mini-swe-agent images).
CLAW_TOOLS = {"reference": {"bash", "read_file", "write_file", "edit", "submit", "view_image"},
              "nanobot": {"exec", "read_file", "write_file", "edit_file", "list_dir"},
              "mini-swe-agent": {"bash"}}
SCRIPTED_PRICE = {"input": 3.0, "cached_input": 0.3, "output": 15.0}  # the cassettes README's default
JSON_HEREDOC = re.compile(r"cat > (\S+) <<'JSON'\n(.*?)\nJSON", re.S)


def _run(*args):
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=1800)
    return SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr, stdout=done.stdout)


def _cassette(model: str, task_id: str) -> dict:
    return yaml.safe_load((CASSETTES / f"{model.removeprefix('scripted/').replace('{task_id}', task_id)}.yaml").read_text())


def _played(cassette: dict, claw: str) -> list[dict]:
    """The script steps (no trigger) of the first variant whose tools the claw offers, else the top level."""
    steps = next((v["steps"] for v in cassette.get("variants", []) if set(v["offers"]) <= CLAW_TOOLS[claw]),
                 cassette["steps"])
    return [s for s in steps if "match" not in s]


def _cost(steps: list[dict], price: dict) -> float:
    cached_rate = price.get("cached_input", price["input"])
    return sum(((s["usage"]["prompt"] - s["usage"].get("cached", 0)) * price["input"]
                + s["usage"].get("cached", 0) * cached_rate + s["usage"]["completion"] * price["output"]) / 1e6
               for s in steps)


def _calls(steps: list[dict]):
    return [(c["name"], c.get("arguments") or {}) for s in steps for c in s.get("tool_calls", [])]


# ---- patch track: replay on a host checkout, run the instance's tests -----------------------------

def _instance(task_id: str) -> dict:
    rows = [json.loads(line) for line in (TASKS_CATALOG / "swe" / "instances.jsonl").read_text().splitlines() if line]
    return next(r for r in rows if r["instance_id"] == task_id)


def _tests_pass(instance: dict, work: Path, claw: str, steps: list[dict]) -> bool:
    repo = work / "repo"
    bundle = TASKS_CATALOG / "swe" / instance["repo_bundle"]
    subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True)
    subprocess.run(["git", "checkout", "-q", instance["base_commit"]], cwd=repo, check=True)
    if claw == "oracle":
        subprocess.run(["git", "apply", "-"], input=instance["patch"], text=True, cwd=repo, check=True)
    for name, args in _calls(steps):
        if name == "edit":
            path = repo / args["path"]
            text = path.read_text()
            if args["old_str"] in text:
                path.write_text(text.replace(args["old_str"], args["new_str"], 1))
        elif name in ("bash", "exec"):
            subprocess.run(["bash", "-c", args["command"]], cwd=repo, capture_output=True, timeout=60)
    subprocess.run(["git", "apply", "-"], input=instance["test_patch"], text=True, cwd=repo, check=True)
    tests = instance["FAIL_TO_PASS"] + _as_list(instance["PASS_TO_PASS"])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=repo,
                          capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return done.returncode == 0


def _as_list(value) -> list[str]:
    return value if isinstance(value, list) else json.loads(value.replace("'", '"'))


# ---- closed loop: the summary the calls write, scored by the task's own checks and rubric ---------

def _closed_loop_cell(task_dir: Path, steps: list[dict], price: dict, judge: dict, user: dict) -> dict:
    """Turn by turn, as the loop runs: the executor's turn, the judge's call, a follow-up while the
    score is under the threshold and turns are left."""
    task = yaml.safe_load((task_dir / "task.yaml").read_text())
    max_turns = 1 + task["codex"]["max_user_followups"]
    written, cost, best = {}, 0.0, -1.0
    for turn, played in enumerate(_turns(steps)[:max_turns], start=1):
        judged = [s for s in judge["steps"] if s.get("match") == f"EXECUTOR TURN {turn} OF {max_turns}"]
        cost += _cost(played, price) + _cost(judged, judge.get("price", SCRIPTED_PRICE))
        written |= {m[1]: json.loads(m[2]) for _, args in _calls(played) for m in JSON_HEREDOC.finditer(args.get("command", ""))}
        best = max(best, _score(task_dir, written))
        if best >= task["success_threshold"]:
            break
        if turn < max_turns:
            cost += _cost(user["steps"][:1], user.get("price", SCRIPTED_PRICE))
    return {"passed": best >= task["success_threshold"], "score": best, "turns": turn, "cost": cost}


def _turns(steps: list[dict]) -> list[list[dict]]:
    """A turn ends on a reply without tool calls, or on mini-swe-agent's submit sentinel."""
    turns, current = [], []
    for step in steps:
        current.append(step)
        commands = [args.get("command", "") for _, args in _calls([step])]
        if not commands or any("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in c for c in commands):
            turns.append(current)
            current = []
    return turns + ([current] if current else [])


def _score(task_dir: Path, written: dict) -> float:
    checks = yaml.safe_load((task_dir / "references" / "checks.yaml").read_text())
    passed = {c["id"]: _check(c, written, task_dir) for c in checks["checks"]}
    rubric = (task_dir / "references" / "eval_rule.md").read_text()
    weights = {cp: float(w) for cp, w in re.findall(r"^\| (CP\d+) \|[^|]*\| ([0-9.]+) \|", rubric, re.M)}
    covered = {c["checkpoint"] for c in checks["checks"]}
    assert covered == set(weights), "every checkpoint is checked in code, so the judge's score does not count"
    score = sum(w for cp, w in weights.items() if all(passed[c["id"]] for c in checks["checks"] if c["checkpoint"] == cp))
    caps = [cap["max_score"] for cap in checks.get("caps", []) if not passed[cap["check"]]]
    return min([score, *caps])


def _check(check: dict, written: dict, task_dir: Path) -> bool:
    data = written.get(f"/tmp_workspace/{check['path']}")
    if data is None:
        return False
    value = data.get(check.get("pointer", ""))
    if check["kind"] == "file_exists":
        return True
    if check["kind"] == "json_keys":
        return set(check["keys"]) <= set(data)
    if check["kind"] == "number":
        return value is not None and abs(float(value) - check["value"]) <= check.get("tolerance", 0)
    if check["kind"] == "equals_reference":
        reference = json.loads((task_dir / check["reference"]).read_text())
        return value == reference[check["reference_pointer"]]
    raise AssertionError(f"the demo task uses a check kind this test does not know: {check['kind']}")


def _expected(tmp_path: Path) -> pd.DataFrame:
    cells = []
    judges = SPEC["closed_loop"]["attempt"]
    for model in SPEC["models"]:
        for task_id in SPEC["tasks"]:
            cassette, instance = _cassette(model, task_id), _instance(task_id)
            for claw in SPEC["claws"]:
                steps = _played(cassette, claw) if claw in CLAW_TOOLS else []
                work = tmp_path / "replay" / f"{claw}-{model.split('/')[1].split('-{')[0]}"
                cells.append({"track": "patch", "task_id": task_id, "claw": claw, "model": model,
                              "passed": _tests_pass(instance, work, claw, steps),
                              "cost": _cost(steps, cassette.get("price", SCRIPTED_PRICE))})
        for task_id in SPEC["closed_loop"]["tasks"]:
            cassette, task_dir = _cassette(model, task_id), TASKS_CATALOG / "closed_loop" / task_id
            judge, user = _cassette(judges["supervisor_model"], task_id), _cassette(judges["simulator_model"], task_id)
            for claw in (c for c in SPEC["claws"] if c in CLAW_TOOLS):
                price = cassette.get("price", SCRIPTED_PRICE)
                cells.append({"track": "closed_loop", "task_id": task_id, "claw": claw, "model": model,
                              **_closed_loop_cell(task_dir, _played(cassette, claw), price, judge, user)})
    return pd.DataFrame(cells)


@pytest.mark.timeout(2400)  # 16 real cells, two of them three-turn closed loops: longer than the suite's 900 s per test
def test_make_demo_reports_what_the_cassettes_imply_and_reruns_from_the_store(docker_client, prefect_harness, tmp_path):
    from clawmark.results import ResultStore

    expected = _expected(tmp_path)
    assert expected["passed"].any() and not expected["passed"].all()  # the demo shows a spread
    results, report = tmp_path / "results", tmp_path / "report"
    first = _run("demo", "--results", results, "--out", report)
    assert first.exit_code == 0, first.output
    assert first.stdout.strip().splitlines()[-1] == f"report: {report / 'index.html'}"
    assert f"{len(expected)} run, 0 reused" in first.stdout
    assert not re.search(r"\| (DEBUG|INFO|WARNING) +\|", first.output), "Prefect's log lines stay out of the demo"

    rows = ResultStore(results).read("demo").set_index(["track", "claw", "model"]).sort_index()
    cells = expected.set_index(["track", "claw", "model"]).sort_index()
    assert list(rows.index) == list(cells.index) and rows["passed"].notna().all()  # no error row
    assert rows["passed"].astype(bool).tolist() == cells["passed"].tolist()
    assert rows["cost_usd"].tolist() == pytest.approx(cells["cost"].tolist(), abs=1e-9)
    closed = cells.loc["closed_loop"]
    assert rows.loc["closed_loop", "score"].tolist() == pytest.approx(closed["score"].tolist(), abs=1e-6)
    assert rows.loc["closed_loop", "turns"].tolist() == closed["turns"].tolist()

    # The sanity baselines (oracle, nop) have their own table, off the leaderboard and its front;
    # the report names a per-task model template as one model (display_model).
    from analysis.report.build import display_model

    board = pd.concat([pd.read_csv(report / "tables" / f"{name}.csv") for name in ("leaderboard", "baselines")])
    board = board.set_index(["claw", "model"]).sort_index()
    per_config = expected.assign(model=expected["model"].map(display_model)).groupby(["claw", "model"]).agg(
        pass_at_1=("passed", "mean"), total_cost=("cost", "sum"))
    assert list(board.index) == list(per_config.index)
    assert board["pass_at_1"].tolist() == pytest.approx(per_config["pass_at_1"].tolist())
    assert board["total_cost"].tolist() == pytest.approx(per_config["total_cost"].tolist(), abs=1e-9)
    assert (board["errors"] == 0).all()
    html = (report / "index.html").read_text()
    assert all(claw in html for claw in SPEC["claws"]) and "demo-small" in html

    again = _run("demo", "--results", results, "--out", report)
    assert again.exit_code == 0, again.output
    assert f"0 run, {len(expected)} reused" in again.stdout and "[1/" not in again.output
    assert again.stdout.strip().splitlines()[-1] == f"report: {report / 'index.html'}"
    assert not math.isnan(board["total_cost"].sum())
