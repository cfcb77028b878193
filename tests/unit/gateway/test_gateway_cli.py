"""`clawmark gateway serve` by hand: curl a scripted completion, the ledger gains a priced line,
SIGINT stops it; bad input is one clear line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

CURL_BODY = json.dumps({"model": "scripted/demo", "messages": [{"role": "user", "content": "hi"}]})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_line(proc: subprocess.Popen, needle: str, timeout_s: float = 60) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if needle in line:
            return line
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"gateway serve never printed {needle!r}: {proc.stderr.read()}")


def test_serve_then_curl_gains_a_ledger_line(tmp_path):
    port = free_port()
    env = os.environ | {"CLAWMARK_HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "clawmark.cli.main", "gateway", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--allow-unregistered"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_line(proc, "listening")
        out = subprocess.run(["curl", "-s", "-H", "content-type: application/json", "-d", CURL_BODY,
                              f"http://127.0.0.1:{port}/a/demo/executor/v1/chat/completions"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill() if proc.poll() is None else None
    assert json.loads(out)["choices"][0]["message"]["content"] == "Let me look at the workspace first."
    [line] = (tmp_path / "ledgers" / "demo.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert (record["input_tokens"], record["output_tokens"], record["cost_usd"]) == (1200, 40, 0.0042)


def test_serve_refuses_unregistered_attempts_by_default(tmp_path):
    port = free_port()
    env = os.environ | {"CLAWMARK_HOME": str(tmp_path)}
    cmd = [sys.executable, "-m", "clawmark.cli.main", "gateway", "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "http://127.0.0.1:" in wait_for_line(proc, "listening")  # loopback unless told otherwise
        wait_for_line(proc, "--allow-unregistered")
        code = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "content-type: application/json",
                               "-d", CURL_BODY, f"http://127.0.0.1:{port}/a/demo/executor/v1/chat/completions"],
                              capture_output=True, text=True, timeout=30, check=True).stdout
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill() if proc.poll() is None else None
    assert code == "404" and not (tmp_path / "ledgers" / "demo.jsonl").exists()


def test_bad_price_file_is_one_clear_line(tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  openai/x: {input: cheap}\n")
    env = os.environ | {"CLAWMARK_PRICES": str(prices), "CLAWMARK_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", "gateway", "serve", "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(f"error: {prices}: field 'models'") and "Traceback" not in done.stderr
