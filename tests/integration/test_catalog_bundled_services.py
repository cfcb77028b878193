"""The bundled suite's services do what the tasks promise, in a real task container, for the
unprivileged executor: the FIFO console answers, the oneshot seeder leaves a SQLite store, the
helpdesk API paginates and hands out receipts, the skills' scripts run on the injected files."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog import load_task
from clawmark.runtime.images import ensure_image
from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv.config import TaskEnvConfig
from clawmark.taskenv.env import TaskEnv

pytestmark = pytest.mark.docker

QUERY = ("import sqlite3, json; db = sqlite3.connect('/tmp_workspace/clawbench/data/orders.db'); print(json.dumps("
         "db.execute(\"select error_code, count(*) from orders where status='failed' and is_test=0 and created_at "
         "between '2026-03-14 18:00:00' and '2026-03-14 23:59:59' group by 1 order by 2 desc\").fetchall()))")
POST = ("import json, urllib.request as u; r = u.Request('http://127.0.0.1:18765/tickets/111/labels', "
        "data=b'{\"label\": \"escalated\"}', method='POST'); print(json.load(u.urlopen(r))['receipt'])")
PAGE = "import json, urllib.request as u; print(json.dumps(json.load(u.urlopen('http://127.0.0.1:18765/tickets?page=3'))))"


def play(task_id: str, command: str | list[str], tmp_path, docker_client) -> str:
    """Run `command` (a bash line, or argv lists run one after the other) as the executor."""
    task = load_task(TASKS_CATALOG / "closed_loop" / task_id)
    config = TaskEnvConfig(image=ensure_image("python"), labels={"clawmark.test": "catalog-services"})
    argvs = [["bash", "-lc", command]] if isinstance(command, str) else command
    out = ""
    with TaskEnv(task, config, tmp_path / task_id) as sandbox:
        for argv in argvs:
            done = sandbox.exec(argv, timeout_s=60, user="1000:1000", workdir="/tmp_workspace")
            assert done.exit_code == 0, done.stderr
            out += done.stdout
    return out


def test_fifo_console_answers_through_the_pipes(tmp_path, docker_client) -> None:
    out = play("en_102_find_port", "bash /tmp_workspace/clawbench/sources/console.sh 'ls /etc/payment/overrides.d' "
               "'cat /etc/payment/overrides.d/20-port.conf' && cat /tmp_workspace/clawbench/logs/ops-console.log",
               tmp_path, docker_client)
    assert "> ls /etc/payment/overrides.d\n10-tls.conf\n20-port.conf\n" in out and "listen_port=9443" in out
    assert out.count("cat /etc/payment/overrides.d/20-port.conf") == 2  # replied, and logged


def test_oneshot_seeds_the_order_store(tmp_path, docker_client) -> None:
    out = play("zh_202_error_code", [["python3", "-c", QUERY]], tmp_path, docker_client)
    assert json.loads(out) == [["E431", 27], ["E502", 19], ["E118", 6]]


def test_helpdesk_api_paginates_and_receipts_match_the_reference(tmp_path, docker_client) -> None:
    out = play("en_105_ticket_sync", [["python3", "-c", PAGE], ["python3", "-c", POST]], tmp_path, docker_client)
    page, receipt = out.splitlines()
    assert json.loads(page)["next"] is None and [t["id"] for t in json.loads(page)["tickets"]] == [111, 112, 113, 114]
    answer = json.loads((TASKS_CATALOG / "closed_loop/en_105_ticket_sync/references/answer.json").read_text())
    assert receipt == answer["receipts"]["111"]


def test_skill_scripts_run_on_the_injected_files(tmp_path, docker_client) -> None:
    digest = play("en_101_sales_total", "python3 /root/skills/csv-summary/summarize.py /tmp_workspace/clawbench/"
                  "sources/sales_march.csv --sum amount --by region --where status=settled", tmp_path, docker_client)
    assert json.loads(digest)["digest"] == "8a284d34f970" and json.loads(digest)["total"] == "970.00"
    invites = play("zh_205_inbox_digest", "python3 /root/skills/mail-digest/extract_invites.py "
                   "/tmp_workspace/clawbench/inbox", tmp_path, docker_client)
    kinds = {json.loads(line)["mail"]: json.loads(line)["kind"] for line in invites.splitlines()}
    assert kinds["005.eml"] == "reschedule" and kinds["006.eml"] == "promo" and len(kinds) == 6
