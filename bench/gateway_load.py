"""Gateway under load: 64 attempts each streaming chat completions back to back for a bounded
minute on loopback, through `clawmark gateway serve` (its own process) to the scripted upstream
(its own process). In the same run the same client hits the upstream directly, in rounds
alternating with the gateway's (the VM's speed drifts by the minute): that is the floor, and the
gateway's latency and throughput are printed against it (added ms and ratio, p50 and p99).

Checked, not only timed: every request sent through the gateway has exactly one line in its own
attempt's ledger (none dropped, none written to another attempt), every stream ended with
[DONE]; the gateway's RSS before and after the load is printed. Exit 1 when a check fails.
Usage: python bench/gateway_load.py [--attempts 64] [--seconds 60] [--floor-seconds 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

BODY = {"model": "scripted/bench", "stream": True, "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "say the pangram"}]}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(argv: list[str], env: dict[str, str], ready_url: str) -> subprocess.Popen:
    proc = subprocess.Popen(argv, env=os.environ | env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", int(ready_url.rsplit(":", 1)[1].split("/")[0])), 1):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"{argv} died: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.2)
    raise SystemExit(f"{argv} not ready in 90 s")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.sent: Counter[str] = Counter()
        self.failed: list[str] = []

    def add(self, other: "Tally") -> None:
        self.latencies += other.latencies
        self.sent.update(other.sent)
        self.failed += other.failed


async def one_stream(session: aiohttp.ClientSession, url: str, body: dict, who: str, tally: Tally) -> None:
    started = time.perf_counter()
    tally.sent[who] += 1
    try:
        async with session.post(url, json=body) as response:
            data = await response.read()
        if response.status != 200 or not data.rstrip().endswith(b"data: [DONE]"):
            tally.failed.append(f"{who}: HTTP {response.status} {data[-200:]!r}")
            return
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        tally.failed.append(f"{who}: {type(exc).__name__}: {exc}")
        return
    tally.latencies.append(time.perf_counter() - started)


async def load(urls: dict[str, str], body: dict, seconds: float) -> Tally:
    """One worker per attempt, each sending its next request as soon as the last one ended."""
    tally, stop_at = Tally(), time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=len(urls) + 8)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        async def worker(who: str, url: str) -> None:
            while time.monotonic() < stop_at:
                await one_stream(session, url, body, who, tally)

        await asyncio.gather(*(worker(who, url) for who, url in urls.items()))
    return tally


def ledger_check(ledger_dir: Path, sent: Counter[str]) -> list[str]:
    """Problems: an attempt whose ledger lines differ from the requests it sent, or a line in
    the wrong attempt's file."""
    problems = []
    for attempt, count in sorted(sent.items()):
        path = ledger_dir / f"{attempt}.jsonl"
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
        if len(lines) != count:
            problems.append(f"{attempt}: {count} requests sent, {len(lines)} ledger lines")
        if strays := [line["attempt_id"] for line in lines if line["attempt_id"] != attempt]:
            problems.append(f"{attempt}: ledger lines of other attempts {sorted(set(strays))}")
    return problems


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def start(ledger_dir: Path) -> tuple[subprocess.Popen, subprocess.Popen, str, str]:
    upstream_port, gateway_port = free_port(), free_port()
    upstream_url = f"http://127.0.0.1:{upstream_port}/v1"
    upstream = spawn([sys.executable, "-m", "uvicorn", "--factory", "clawmark.gateway.scripted:create_scripted_app",
                      "--port", str(upstream_port), "--log-level", "warning", "--no-access-log"], {},
                     f"http://127.0.0.1:{upstream_port}/")
    env = {"CLAWMARK_SCRIPTED_URL": upstream_url, "CLAWMARK_HOME": str(ledger_dir.parent),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    gateway = spawn([sys.executable, "-m", "clawmark.cli.main", "gateway", "serve", "--host", "127.0.0.1",
                     "--port", str(gateway_port), "--ledger-dir", str(ledger_dir), "--allow-unregistered"], env,
                    f"http://127.0.0.1:{gateway_port}/")
    return upstream, gateway, upstream_url, f"http://127.0.0.1:{gateway_port}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=64, help="concurrent streaming attempts")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the gateway load")
    parser.add_argument("--floor-seconds", type=float, default=30.0, help="length of the direct (floor) load")
    parser.add_argument("--rounds", type=int, default=3, help="direct and gateway loads alternated this many times")
    args = parser.parse_args()
    ledger_dir = Path(tempfile.mkdtemp(prefix="clawmark-load-")) / "ledgers"
    upstream, gateway, upstream_url, gateway_url = start(ledger_dir)
    names = [f"load-{i:02d}" for i in range(args.attempts)]
    try:
        print(f"gateway load: {args.attempts} streaming attempts, {args.seconds:.0f} s through the gateway, "
              f"{args.floor_seconds:.0f} s direct, alternated in {args.rounds} rounds; load average {os.getloadavg()[0]:.2f} at start")
        asyncio.run(load({"warm-up": gateway_url + "/a/warm-up/executor/v1/chat/completions"}, BODY, 1.0))
        rss_before = rss_mb(gateway.pid)
        direct_urls = {n: upstream_url + "/chat/completions" for n in names}
        urls = {n: f"{gateway_url}/a/{n}/executor/v1/chat/completions" for n in names}
        direct, through = Tally(), Tally()
        for _ in range(args.rounds):  # alternated: a machine that slows down slows both sides alike
            direct.add(asyncio.run(load(direct_urls, BODY | {"model": "bench"}, args.floor_seconds / args.rounds)))
            through.add(asyncio.run(load(urls, BODY, args.seconds / args.rounds)))
        time.sleep(1.0)  # the last ledger lines are written as the streams end
        rss_after = rss_mb(gateway.pid)
        problems = ledger_check(ledger_dir, through.sent) + through.failed[:20] + direct.failed[:5]
        report(direct, through, args.seconds, args.floor_seconds, rss_before, rss_after)
    finally:
        for proc in (gateway, upstream):
            proc.terminate()
            proc.wait(timeout=30)
    print(f"  load average {os.getloadavg()[0]:.2f} at end")
    for problem in problems:
        print(f"  PROBLEM {problem}")
    print("  checks: " + ("FAILED" if problems else f"OK - {sum(through.sent.values())} requests, one ledger line "
                                                     "each in its own attempt's ledger, every stream ended [DONE]"))
    return 1 if problems else 0


def report(direct: Tally, through: Tally, seconds: float, floor_seconds: float, rss_before: float,
           rss_after: float) -> None:
    for label, tally, span in (("direct (floor)", direct, floor_seconds), ("through gateway", through, seconds)):
        print(f"  {label:<16} {len(tally.latencies):6d} ok  {len(tally.latencies) / span:7.1f} req/s  "
              f"p50 {pct(tally.latencies, 50):7.2f} ms  p99 {pct(tally.latencies, 99):7.2f} ms")
    for q in (50, 99):
        floor, gate = pct(direct.latencies, q), pct(through.latencies, q)
        print(f"  p{q} added by the gateway {gate - floor:+7.2f} ms  ratio to the floor {gate / floor:5.2f}x")
    print(f"  throughput ratio (gateway / direct) {len(through.latencies) / seconds / (len(direct.latencies) / floor_seconds):.2f}")
    print(f"  gateway RSS {rss_before:.1f} MB before, {rss_after:.1f} MB after ({rss_after - rss_before:+.1f} MB)")


if __name__ == "__main__":
    sys.exit(main())
