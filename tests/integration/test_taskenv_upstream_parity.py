"""An upstream-layout task container as upstream's runner builds it (docs/upstream-parity.md):
`*_snapshot.json` sources of a task without a snapshot path and a skill whose entry file is a
lowercase `skill.md` are copied in, the host aliases resolve to the host, /dev/shm is 2 GB, and
the executor is root inside the least-privilege container, so upstream's `apt-package-manager`
skill installs a Debian package as upstream's does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clawmark.catalog.package import load_task
from clawmark.runtime.privileges import LEAST_CAPS
from clawmark.taskenv import TaskEnv, TaskEnvConfig
from clawmark.taskenv.config import UPSTREAM_BASE_SKILLS

from tests.support.taskenv_fixtures import EVAL_RULE, as_executor
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker
TASK_ID, CATEGORY = "task_101_99_parity_probe", "101_skill_usage"
CAPABILITY_BITS = {"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "FSETID": 4, "KILL": 5, "SETGID": 6, "SETUID": 7}
DDG_PAGE = """<html><body><div class="result results_links">
<h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwiki.test%2FEthanol&amp;rut=x">Ethanol - Wiki</a></h2>
<a class="result__snippet" href="#">Ethanol boils at <b>78.37</b> °C. It is a volatile liquid.</a></div>
<div class="result"><h2><a class="result__a" href="https://chem.test/table">Boiling points</a></h2>
<a class="result__snippet">A table of boiling points.</a></div></body></html>
"""
FILES = {
    "sources/ai_news_zh_snapshot.json": '{"items": []}\n',  # as 101_35: its snapshots are plain inputs
    "sources/notes.txt": "notes\n",
    "sources/ddg.html": DDG_PAGE,
    "skills/clawsec/skill.md": "# clawsec\nlowercase entry file, as upstream's 101_25\n",
    "skills/clawsec/_meta.json": "{}\n",
    "references/eval_rule.md": EVAL_RULE.format(task_id=TASK_ID, secret_line="hidden"),
}


def make_upstream_package(root: Path, files: dict[str, str], **spec) -> Path:
    """A task in upstream's layout (tasks/<category>/<id>.yaml + injection/<category>/<id>/)."""
    package = root / "injection" / CATEGORY / TASK_ID
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    data = {"task_id": TASK_ID, "category": CATEGORY, "task": "Read the sources.",
            "references": ["references/eval_rule.md"], "skills": ["clawsec"], **spec}
    task_file = root / "tasks" / CATEGORY / f"{TASK_ID}.yaml"
    task_file.parent.mkdir(parents=True)
    task_file.write_text(yaml.safe_dump(data))
    return task_file


@pytest.fixture(scope="module")
def parity_env(workstation, tmp_path_factory):  # noqa: F811
    root = tmp_path_factory.mktemp("upstream")
    task = load_task(make_upstream_package(root, FILES))
    config = TaskEnvConfig(image=workstation, labels={"clawmark.test": "taskenv-parity"})  # defaults: upstream's
    env = TaskEnv(task, config, root / "logs")
    with env as sandbox:
        yield env, sandbox


def test_snapshot_sources_and_a_lowercase_skill_are_copied_in(parity_env):
    _env, sandbox = parity_env
    listed = as_executor(sandbox, "ls /tmp_workspace/clawbench/sources; ls /root/skills/clawsec")
    assert listed.stdout.split() == ["ai_news_zh_snapshot.json", "ddg.html", "notes.txt", "_meta.json", "skill.md"]
    assert sandbox.read_file("/root/skills/clawsec/skill.md").decode() == FILES["skills/clawsec/skill.md"]


def test_host_aliases_and_shared_memory_are_upstreams(parity_env, docker_client):
    _env, sandbox = parity_env
    hosts = as_executor(sandbox, "getent hosts match-stream.local host.docker.internal clawmark-gateway")
    addresses = {line.split()[1]: line.split()[0] for line in hosts.stdout.splitlines()}
    assert set(addresses) == {"match-stream.local", "host.docker.internal", "clawmark-gateway"}
    assert len(set(addresses.values())) == 1  # every alias names the host, where the gateway listens
    shm = as_executor(sandbox, "df -k --output=size /dev/shm | tail -1")
    assert int(shm.stdout) == 2 * 2**20
    assert docker_client.containers.get(sandbox.container_id).attrs["HostConfig"]["ShmSize"] == 2 * 2**30


def test_the_executor_is_root_with_capabilities_still_dropped(parity_env):
    _env, sandbox = parity_env
    status = dict(line.split(":\t", 1) for line in as_executor(sandbox, "cat /proc/self/status").stdout.splitlines()
                  if ":\t" in line)
    assert status["Uid"].split()[0] == "0" and status["NoNewPrivs"].strip() == "1"
    # exactly the least profile's capabilities: no NET_RAW, SYS_ADMIN, MKNOD..., whoever the executor is
    assert int(status["CapEff"], 16) == sum(1 << CAPABILITY_BITS[name] for name in LEAST_CAPS)


def test_the_apt_skill_installs_a_debian_package_as_root(parity_env):
    _env, sandbox = parity_env
    installed = sandbox.exec("/root/skills/apt-package-manager/scripts/apt-user-install.sh hello && hello", timeout_s=600)
    assert installed.exit_code == 0, installed.stderr[-2000:]
    assert installed.stdout.strip().endswith("Hello, world!")
    assert as_executor(sandbox, "dpkg-query -W -f='${Status}' hello").stdout == "install ok installed"


def test_upstreams_base_skills_are_installed_by_default(parity_env):
    _env, sandbox = parity_env
    skills = as_executor(sandbox, "ls /root/skills").stdout.split()
    assert skills == sorted([*UPSTREAM_BASE_SKILLS, "clawsec"])
    assert all(as_executor(sandbox, f"test -s /root/skills/{name}/SKILL.md").exit_code == 0 for name in UPSTREAM_BASE_SKILLS)
    # `agent-browser` is on PATH as upstream's; this image has no browser, and it says so
    browse = as_executor(sandbox, "command -v agent-browser && agent-browser open http://127.0.0.1:9/")
    assert browse.stdout.strip() == "/usr/local/bin/agent-browser" and browse.exit_code == 1
    assert "none is installed" in browse.stderr


def test_duckduckgo_search_reads_results_as_upstreams_skill_does(parity_env):
    _env, sandbox = parity_env
    serve = ("cd /tmp_workspace/clawbench/sources && (setsid python3 -m http.server 8097 --bind 127.0.0.1 "
             ">/dev/null 2>&1 &) && sleep 1")
    sandbox.exec(serve, timeout_s=30)
    search = ("DDG_HTML_URL=http://127.0.0.1:8097/ddg.html python3 "
              "/root/skills/duckduckgo-search/scripts/duckduckgo_search.py 'ethanol boiling point' -n 1 --summarize --json")
    found = as_executor(sandbox, search)
    assert found.exit_code == 0, found.stderr
    assert json.loads(found.stdout) == {
        "query": "ethanol boiling point", "mode": "html",
        "results": [{"title": "Ethanol - Wiki", "url": "https://wiki.test/Ethanol",
                     "snippet": "Ethanol boils at 78.37 °C. It is a volatile liquid."}],
        "summary": ["Ethanol boils at 78.37 °C."]}
