"""Gateway overhead: streamed chat completions through the gateway vs straight to the scripted
upstream, p50 and p99, at 1 and 32 concurrent streams, in one run, the paths alternating in rounds (target p50 overhead <= 1 ms at 1 stream; exit 1 above it).

The scripted upstream and the gateway each run in their own process (as in a sweep), so the
client's event loop does not share a GIL with them. A bare Python relay on the same server stack
(bench/_relay_floor.py) is measured beside them: the least any Python hop adds on this machine.
Usage: python bench/gateway.py [--requests N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

TARGET_P50_OVERHEAD_MS = 1.0
DIRECT = "direct to upstream"
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
            httpx.get(ready_url, timeout=1)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                raise SystemExit(f"{argv[2]} died: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.2)
    raise SystemExit(f"{argv} not ready in 90 s")


async def one_stream(client: httpx.AsyncClient, url: str, body: dict) -> float:
    started = time.perf_counter()
    async with client.stream("POST", url, json=body) as response:
        response.raise_for_status()
        async for _ in response.aiter_bytes():
            pass
    return time.perf_counter() - started


async def measure(url: str, body: dict, streams: int, requests: int) -> list[float]:
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        await asyncio.gather(*(one_stream(client, url, body) for _ in range(streams)))  # warm connections
        latencies: list[float] = []

        async def worker(n: int) -> None:
            for _ in range(n):
                latencies.append(await one_stream(client, url, body))

        per_worker = max(1, requests // streams)
        await asyncio.gather(*(worker(per_worker) for _ in range(streams)))
    return latencies


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000 if q < 100 else max(values) * 1000


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def row(label: str, latencies: list[float], direct: list[float] | None = None, cpu_ms: float | None = None) -> str:
    text = f"    {label:<22} p50 {pct(latencies, 50):7.2f} ms  p99 {pct(latencies, 99):7.2f} ms"
    if direct is not None:
        text += f"  | overhead p50 {pct(latencies, 50) - pct(direct, 50):+7.2f} ms  p99 {pct(latencies, 99) - pct(direct, 99):+7.2f} ms"
    return text + (f"  | gateway CPU {cpu_ms:.2f} ms/req" if cpu_ms is not None else "")


def start_servers(upstream_port: int) -> tuple[list[subprocess.Popen], dict[str, str]]:
    """The scripted upstream, and two gateways in front of it: passthrough (default) and litellm."""
    upstream_url = f"http://127.0.0.1:{upstream_port}/v1"
    procs = [spawn([sys.executable, "-m", "uvicorn", "--factory", "clawmark.gateway.scripted:create_scripted_app",
                    "--port", str(upstream_port), "--log-level", "warning", "--no-access-log"], {},
                   upstream_url + "/models")]
    urls = {"direct": upstream_url + "/chat/completions"}
    floor_port = free_port()
    procs.append(spawn([sys.executable, "-m", "uvicorn", "--factory", "_relay_floor:create_app", "--app-dir",
                        os.path.dirname(os.path.abspath(__file__)), "--port", str(floor_port), "--http", "httptools",
                        "--loop", "uvloop", "--log-level", "warning", "--no-access-log"],
                       {"CLAWMARK_FLOOR_UPSTREAM": urls["direct"]}, f"http://127.0.0.1:{floor_port}/"))
    urls["bare python relay"] = f"http://127.0.0.1:{floor_port}/v1/chat/completions"
    for label, passthrough in (("gateway", "1"), ("gateway via litellm", "0")):
        port = free_port()
        env = {"CLAWMARK_SCRIPTED_URL": upstream_url, "CLAWMARK_HOME": tempfile.mkdtemp(),
               "CLAWMARK_GATEWAY_PASSTHROUGH": passthrough}
        procs.append(spawn([sys.executable, "-m", "clawmark.cli.main", "gateway", "serve", "--host", "127.0.0.1",
                            "--port", str(port), "--allow-unregistered"], env, f"http://127.0.0.1:{port}/healthz"))
        urls[label] = f"http://127.0.0.1:{port}/a/bench/executor/v1/chat/completions"
    return procs, urls


def measure_level(urls: dict[str, str], pids: dict[str, int], streams: int, requests: int,
                  rounds: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Every path's latencies at one concurrency, the paths taken in turn round after round, so a
    slow minute of the machine (it drifts by tenths of a millisecond here) falls on all of them;
    and each gateway's CPU per request over its rounds."""
    latencies: dict[str, list[float]] = {label: [] for label in urls}
    cpu: dict[str, float] = {label: 0.0 for label in pids}
    for _ in range(rounds):
        for label, url in urls.items():
            body = BODY | {"model": "bench"} if label == DIRECT else BODY
            before = cpu_seconds(pids[label]) if label in pids else 0.0
            taken = asyncio.run(measure(url, body, streams, max(streams, requests // rounds)))
            if label in pids:
                cpu[label] += cpu_seconds(pids[label]) - before
            latencies[label] += taken
    # each measure() also sends `streams` warm-up requests, which the CPU reading includes
    cpu_ms = {label: seconds * 1000 / (len(latencies[label]) + streams * rounds) for label, seconds in cpu.items()}
    return latencies, cpu_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200, help="requests per (path, concurrency), all rounds")
    parser.add_argument("--rounds", type=int, default=6, help="rounds the paths alternate in")
    args = parser.parse_args()
    procs, urls = start_servers(free_port())
    gateway_pids = {"bare python relay": procs[1].pid, "gateway": procs[2].pid, "gateway via litellm": procs[3].pid}
    paths = {DIRECT: urls["direct"], **{label: urls[label] for label in gateway_pids}}
    try:
        print(f"gateway bench: streamed chat completions (scripted upstream), ~{args.requests} requests per cell "
              f"in {args.rounds} alternating rounds, one run")
        p50_overhead = {}
        for streams in (1, 32):
            print(f"  {streams} concurrent stream(s):")
            latencies, cpu_ms = measure_level(paths, gateway_pids, streams, args.requests, args.rounds)
            direct = latencies.pop(DIRECT)
            print(row(DIRECT, direct))
            for label, taken in latencies.items():
                print(row(label, taken, direct, cpu_ms[label]))
                p50_overhead[(label, streams)] = pct(taken, 50) - pct(direct, 50)
        overhead = p50_overhead[("gateway", 1)]
        verdict = "OK" if overhead <= TARGET_P50_OVERHEAD_MS else "ABOVE TARGET"
        print(f"  a bare python relay adds {p50_overhead[('bare python relay', 1)]:.2f} ms p50 at 1 stream "
              f"(the floor of any Python hop here)")
        print(f"  gateway p50 overhead at 1 stream {overhead:.2f} ms (target <= {TARGET_P50_OVERHEAD_MS} ms): {verdict}")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=20)
    if overhead > TARGET_P50_OVERHEAD_MS:
        raise SystemExit(f"gateway bench: p50 overhead {overhead:.2f} ms is above the {TARGET_P50_OVERHEAD_MS} ms target")


if __name__ == "__main__":
    main()
