#!/usr/bin/env python3
"""The kanban of clawmark's small EDICT configuration: one JSON list of tasks in
data/tasks_source.json (the file the public EDICT project's board uses, same top-level fields:
id, title, state, org, flow_log), changed only through this command line.

  kanban_update.py create ID TITLE STATE [ORG] [OFFICIAL] [REMARK]
  kanban_update.py state  ID STATE [REMARK]
  kanban_update.py flow   ID FROM TO [REMARK]    (TO becomes the task's org, as in EDICT)
  kanban_update.py done   ID OUTPUT [SUMMARY]
  kanban_update.py progress ID TEXT [PLAN]     (recorded, state unchanged)
  kanban_update.py show   ID
  kanban_update.py board                        (every task: id, state, title, summary)
"""

import datetime
import json
import os
import pathlib
import sys

HOME = pathlib.Path(os.environ.get("EDICT_HOME") or pathlib.Path(__file__).resolve().parent.parent)
BOARD = HOME / "data" / "tasks_source.json"
USAGE = __doc__.split("\n\n", 1)[1]


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def load():
    return json.loads(BOARD.read_text()) if BOARD.exists() else []


def save(tasks):
    BOARD.parent.mkdir(parents=True, exist_ok=True)
    tmp = BOARD.with_suffix(".tmp")
    tmp.write_text(json.dumps(tasks, ensure_ascii=False, indent=1))
    tmp.replace(BOARD)


def find(tasks, task_id):
    for task in tasks:
        if task["id"] == task_id:
            return task
    sys.exit(f"kanban: no task {task_id}")


def log(task, remark, **fields):
    task.setdefault("flow_log", []).append({"at": now(), "remark": remark, **fields})
    task["updatedAt"] = now()


def create(tasks, task_id, title, state, org="", official="", remark="created"):
    if any(task["id"] == task_id for task in tasks):
        sys.exit(f"kanban: task {task_id} exists")
    task = {"id": task_id, "title": title, "state": state, "org": org, "official": official}
    log(task, remark, to=state)
    tasks.append(task)
    return f"{task_id}: created in {state}"


def set_state(tasks, task_id, state, remark=""):
    task = find(tasks, task_id)
    before, task["state"] = task["state"], state
    log(task, remark, **{"from": before, "to": state})
    return f"{task_id}: {before} -> {state}"


def flow(tasks, task_id, source, target, remark=""):
    task = find(tasks, task_id)
    task["org"] = target
    log(task, remark, **{"from": source, "to": target})
    return f"{task_id}: flow {source} -> {target}"


def done(tasks, task_id, output, summary=""):
    task = find(tasks, task_id)
    task["output"], task["summary"] = output, summary
    return set_state(tasks, task_id, "Done", summary)


def progress(tasks, task_id, text, plan=""):
    log(find(tasks, task_id), text, plan=plan)
    return f"{task_id}: progress noted"


COMMANDS = {"create": (create, 3), "state": (set_state, 2), "flow": (flow, 3), "done": (done, 2),
            "progress": (progress, 2)}


def board(tasks):
    if not tasks:
        return "kanban: board empty"
    return "\n".join(f"{t['id']} | state={t['state']} | {t['title']}" + (f" | org={t['org']}" if t.get("org") else "")
                     + (f" | {t['summary']}" if t.get("summary") else "") for t in tasks)


def main(argv):
    if argv == ["board"]:
        return board(load())
    if len(argv) >= 2 and argv[0] == "show":
        return json.dumps(find(load(), argv[1]), ensure_ascii=False, indent=1)
    if not argv or argv[0] not in COMMANDS or len(argv) - 1 < COMMANDS[argv[0]][1]:
        sys.exit(USAGE)
    tasks = load()
    message = COMMANDS[argv[0]][0](tasks, *argv[1:])
    save(tasks)
    return message


if __name__ == "__main__":
    print(main(sys.argv[1:]))
