"""FIFO-driven ops console for en_102_find_port (stdlib only, run as root from its folder).

Write one or more commands to DIR/in, then read the answer from DIR/out. The console's state
(a small virtual config tree) lives only in this process, so the executor has to explore it.
"""

import argparse
import os
import time
from pathlib import Path

TREE = {
    "/etc/payment/README": "Production config is prod.conf plus every file of overrides.d/ in name order;\n"
                           "a later file overrides an earlier one. staging.conf is not used in production.\n",
    "/etc/payment/prod.conf": "service=payment\nenv=production\nlisten_port=8443\ninclude=overrides.d/*.conf\n",
    "/etc/payment/staging.conf": "service=payment\nenv=staging\nlisten_port=8080\n",
    "/etc/payment/overrides.d/10-tls.conf": "tls=on\n",
    "/etc/payment/overrides.d/20-port.conf": "# moved off 8443 after the 2026-02 incident\nlisten_port=9443\n",
    "/etc/payment/legacy/payment.ini": "; DEPRECATED since 2025 - kept for the audit only\nport=7000\n",
    "/var/log/payment/boot.log": "2026-03-01 boot ok\n2026-03-02 listening on :9443\n",
}
HELP = "commands: help | ls PATH | cat PATH | whoami\n"


def listing(path: str) -> str:
    prefix = path.rstrip("/") + "/"
    names = sorted({key[len(prefix):].split("/")[0] + ("/" if "/" in key[len(prefix):] else "")
                    for key in TREE if key.startswith(prefix)})
    return "\n".join(names) + "\n" if names else f"ls: {path}: no such directory\n"


def answer(line: str) -> str:
    command, _, arg = line.strip().partition(" ")
    arg = arg.strip() or "/"
    if command == "help":
        return HELP
    if command == "ls":
        return listing(arg)
    if command == "cat":
        return TREE.get(arg, f"cat: {arg}: no such file\n")
    if command == "whoami":
        return "ops (read-only)\n"
    return f"unknown command {command!r}; " + HELP


def serve(folder: Path, log: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o777)
    for name in ("in", "out"):
        if not (folder / name).exists():
            os.mkfifo(folder / name, 0o666)
        os.chmod(folder / name, 0o666)
    while True:
        with open(folder / "in", encoding="utf-8") as inbox:  # blocks until a writer opens
            lines = [l for l in inbox.read().splitlines() if l.strip()]
        replies = "".join(f"> {l}\n{answer(l)}" for l in lines)
        with log.open("a", encoding="utf-8") as handle:
            handle.writelines(f"{time.strftime('%H:%M:%S')} {l}\n" for l in lines)
        with open(folder / "out", "w", encoding="utf-8") as outbox:  # blocks until a reader opens
            outbox.write(replies)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default="/tmp_workspace/clawbench/console")
    parser.add_argument("--log", default="/tmp_workspace/clawbench/logs/ops-console.log")
    args = parser.parse_args()
    Path(args.log).parent.mkdir(parents=True, exist_ok=True)
    serve(Path(args.dir), Path(args.log))
