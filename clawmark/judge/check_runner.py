"""Runs a task's checks inside the evaluation container (standard library only: it is copied in).

    python3 check_runner.py CHECKS_JSON WORKSPACE JUDGE_DIR  ->  a JSON list on stdout

`path` is relative to WORKSPACE (/tmp_workspace, holding the artifacts copy under results/);
`reference` and `script` are relative to JUDGE_DIR (holding the task's references/). A check
whose evaluation raises is a failed check with `crashed: true` and the error as its detail.
Scripts run with cwd WORKSPACE and CLAWMARK_RESULTS / CLAWMARK_REFERENCES set; exit 0 passes;
a timeout, a signal, an exit code >= 2 or a Python traceback marks the failure as a crash.
"""

import csv
import json
import os
import re
import subprocess
import sys

DETAIL_CHARS = 400


class CheckFailed(Exception):
    """The artifact does not satisfy the check (a measured failure, not a crash)."""


class CheckCrashed(Exception):
    """The check itself could not be evaluated."""


def artifact(ws, relative):
    """WORKSPACE/relative, refused when it resolves outside WORKSPACE (a link to the references)."""
    path = os.path.join(ws, relative)
    real, root = os.path.realpath(path), os.path.realpath(ws)
    if os.path.commonpath([real, root]) != root:
        raise CheckFailed("%s leaves the workspace" % relative)
    return path


def read_text(path):
    if not os.path.isfile(path):
        raise CheckFailed("file missing: %s" % path)
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def load_json(path):
    try:
        return json.loads(read_text(path))
    except ValueError as exc:
        raise CheckFailed("not valid JSON: %s (%s)" % (path, exc))


def at_pointer(value, pointer, where):
    for key in (pointer.split(".") if pointer else []):
        if isinstance(value, list) and key.lstrip("-").isdigit() and -len(value) <= int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            raise CheckFailed("%s has no %r (key path %s)" % (where, key, pointer))
    return value


def as_number(value, where):
    if isinstance(value, bool):
        raise CheckFailed("%s is a boolean, not a number" % where)
    try:
        return float(str(value).replace(",", "").strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise CheckFailed("%s is not a number: %r" % (where, value))


def short(value):
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def run_file_exists(check, ws, judge):
    path = artifact(ws, check["path"])
    if not os.path.exists(path):
        raise CheckFailed("missing: %s" % check["path"])
    return "exists (%d bytes)" % os.path.getsize(path) if os.path.isfile(path) else "exists (folder)"


def run_json_keys(check, ws, judge):
    value = at_pointer(load_json(artifact(ws, check["path"])), check.get("pointer"), check["path"])
    if not isinstance(value, dict):
        raise CheckFailed("%s is not a JSON object" % check["path"])
    missing = [k for k in check["keys"] if k not in value]
    if missing:
        raise CheckFailed("missing keys: %s" % ", ".join(missing))
    return "has keys %s" % ", ".join(check["keys"])


def run_csv_columns(check, ws, judge):
    rows = csv.reader(read_text(artifact(ws, check["path"])).lstrip("\ufeff").splitlines())
    header = [cell.strip() for cell in next(rows, [])]
    missing = [c for c in check["columns"] if c not in header]
    if missing:
        raise CheckFailed("missing columns: %s (header: %s)" % (", ".join(missing), ", ".join(header)))
    return "has columns %s" % ", ".join(check["columns"])


def run_equals_reference(check, ws, judge):
    got = at_pointer(load_json(artifact(ws, check["path"])), check.get("pointer"), check["path"])
    want = at_pointer(load_json(os.path.join(judge, check["reference"])), check.get("reference_pointer"),
                      check["reference"])
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        equal = abs(as_number(got, check["path"]) - want) <= check.get("tolerance", 0.0)
    else:
        equal = got == want or (isinstance(got, str) and isinstance(want, str) and got.strip() == want.strip())
    if not equal:
        raise CheckFailed("got %s, the reference has %s" % (short(got), short(want)))
    return "equals the reference"


def run_regex(check, ws, judge):
    if not re.search(check["pattern"], read_text(artifact(ws, check["path"])), re.MULTILINE):
        raise CheckFailed("pattern not found in %s" % check["path"])
    return "pattern found"


def run_number(check, ws, judge):
    path = artifact(ws, check["path"])
    raw = at_pointer(load_json(path), check["pointer"], check["path"]) if check.get("pointer") else read_text(path)
    got = as_number(raw, check["path"])
    if abs(got - check["value"]) > check.get("tolerance", 0.0):
        raise CheckFailed("got %r, outside the tolerance" % got)
    return "within tolerance"


def run_script(check, ws, judge):
    script = os.path.join(judge, check["script"])
    argv = (["python3", script] if script.endswith(".py") else ["bash", script] if script.endswith(".sh") else [script])
    env = dict(os.environ, CLAWMARK_RESULTS=os.path.join(ws, "results"),
               CLAWMARK_REFERENCES=os.path.join(judge, "references"))
    try:
        done = subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, errors="replace",
                              timeout=check.get("timeout_s", 60.0))
    except subprocess.TimeoutExpired:
        raise CheckCrashed("script timed out after %ss" % check.get("timeout_s", 60.0))
    except OSError as exc:
        raise CheckCrashed("script could not start: %s" % exc)
    output = (done.stdout + done.stderr).strip()[-DETAIL_CHARS:]
    if done.returncode == 0:
        return output or "script passed"
    if done.returncode < 0 or done.returncode >= 2 or "Traceback (most recent call last)" in done.stderr:
        raise CheckCrashed("script exit %d: %s" % (done.returncode, output))
    raise CheckFailed(output or "script exit %d" % done.returncode)


KINDS = {"file_exists": run_file_exists, "json_keys": run_json_keys, "csv_columns": run_csv_columns,
         "equals_reference": run_equals_reference, "regex": run_regex, "number": run_number, "script": run_script}


def run_one(check, ws, judge):
    result = {"id": check["id"], "passed": False, "crashed": False}
    try:
        result["detail"], result["passed"] = KINDS[check["kind"]](check, ws, judge), True
    except CheckFailed as exc:
        result["detail"] = str(exc)
    except CheckCrashed as exc:
        result["detail"], result["crashed"] = str(exc), True
    except Exception as exc:  # noqa: BLE001 - any other error is the check crashing, never the run
        result["detail"], result["crashed"] = "%s: %s" % (exc.__class__.__name__, exc), True
    result["detail"] = str(result["detail"])[:DETAIL_CHARS]
    return result


def main(argv):
    with open(argv[1], encoding="utf-8") as handle:
        checks = json.load(handle)
    json.dump([run_one(check, argv[2], argv[3]) for check in checks], sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
