"""The `registries-only` egress: an HTTP proxy on the gateway network's host address that lets
containers reach package registries and nothing else.

Containers on the internal network have no route out; this proxy (one per process, started on
first use, a daemon thread) tunnels CONNECT, or forwards a plain-HTTP request (apt), to an
allowed registry host on port 80 or 443. Every other destination gets 403 without any
connection being made. Clients find it through HTTP(S)_PROXY (`proxy_env`).

Any container on the internal network can reach the host address, so the proxy serves only
client addresses registered with `allow_client` (the registries-only containers): a `none`
container that finds the port gets a 403 too.
"""

from __future__ import annotations

import asyncio
import threading

from clawmark.runtime.network import GATEWAY_HOSTNAME, gateway_network
from clawmark.settings import settings

REGISTRY_HOSTS = settings().registry_hosts
ALLOWED_PORTS = frozenset({80, 443})
HEADER_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 15.0

_lock = threading.Lock()
_started: tuple[str, int] | None = None
_clients: dict[str, int] = {}  # container IP -> how many live registrations


def registry_proxy() -> tuple[str, int]:
    """(host IP, port) of this process's registry proxy, started once."""
    global _started
    with _lock:
        if _started is None:
            _, host_ip = gateway_network()
            bound: list[int] = []
            up = threading.Event()
            threading.Thread(target=_serve, args=(host_ip, bound, up), daemon=True, name="registry-proxy").start()
            if not up.wait(30) or not bound:
                raise RuntimeError(f"the registry proxy could not listen on {host_ip}")
            _started = (host_ip, bound[0])
        return _started


def allow_client(ip: str) -> None:
    with _lock:
        _clients[ip] = _clients.get(ip, 0) + 1


def forget_client(ip: str) -> None:
    with _lock:
        if _clients.get(ip, 0) > 1:
            _clients[ip] -= 1
        else:
            _clients.pop(ip, None)


def proxy_env(port: int) -> dict[str, str]:
    """Environment that points pip, npm, curl and apt at the proxy (the gateway stays direct)."""
    url = f"http://{GATEWAY_HOSTNAME}:{port}"
    # Claws are handed the gateway by its IP (attempts/gateway_link.container_url), the proxy's own
    # host address: without it here they sent model calls to the proxy, which refuses them (403).
    host_ip = [_started[0]] if _started else []
    no_proxy = ",".join([GATEWAY_HOSTNAME, *host_ip, "localhost", "127.0.0.1"])
    return {"HTTP_PROXY": url, "HTTPS_PROXY": url, "http_proxy": url, "https_proxy": url,
            "NO_PROXY": no_proxy, "no_proxy": no_proxy}


def allowed(host: str, port: int) -> bool:
    return host.lower().rstrip(".") in REGISTRY_HOSTS and port in ALLOWED_PORTS


def _serve(host_ip: str, bound: list[int], up: threading.Event) -> None:
    async def main() -> None:
        try:
            server = await asyncio.start_server(_handle, host_ip, 0, limit=HEADER_LIMIT)
            bound.append(server.sockets[0].getsockname()[1])
        finally:
            up.set()
        async with server:
            await server.serve_forever()

    asyncio.run(main())


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        method, target = head.split(b" ", 2)[:2]
        method, target = method.decode("latin-1"), target.decode("latin-1")
        host, port = _destination(method, target)
        client = (writer.get_extra_info("peername") or ("",))[0]
        if client not in _clients or not allowed(host, port):
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(head)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


def _destination(method: str, target: str) -> tuple[str, int]:
    """host, port of `CONNECT host:port` or `GET http://host[:port]/path`."""
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        return host.strip("[]"), int(port)
    if not target.startswith("http://"):
        raise ValueError("not a proxy request")
    authority = target[len("http://"):].split("/", 1)[0]
    host, _, port = authority.partition(":")
    return host, int(port or 80)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except OSError:
        pass
    finally:
        try:
            writer.write_eof()
        except (OSError, RuntimeError):
            pass
