"""Run an ASGI app with uvicorn in a background thread; `start()` returns once it listens.

One server may listen on several addresses with one port (loopback for our own roles, the
containers' network gateway for claws): the sockets are bound here, the first one picking the
port, and handed to uvicorn together."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn


class ServerStartError(RuntimeError):
    """uvicorn did not come up (port taken, bad host) within the deadline."""


class BackgroundServer:
    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, *, start_timeout_s: float = 15.0,
                 also_hosts: tuple[str, ...] = ()):
        # httptools and uvloop by name, never uvicorn's silent fallback to pure-Python h11 and the
        # stock loop: those cost the gateway ~2x the CPU per proxied call (bench/gateway.py). No
        # X-Forwarded-For rewriting: our servers are reached directly, never behind a proxy. No
        # log_config: uvicorn's dictConfig flushes and closes every handler of the process under
        # logging's lock, and inside a flow run that deadlocked on Prefect's API log handler.
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                lifespan="auto", timeout_keep_alive=30, http="httptools", loop="uvloop",
                                proxy_headers=False, log_config=None)
        self._server = uvicorn.Server(config)
        self._start_timeout_s = start_timeout_s
        wildcard = host in ("0.0.0.0", "::", "")  # already every address: nothing more to bind
        self.hosts = (host,) if wildcard else (host, *(h for h in also_hosts if h != host))
        self.host = host
        self.port = port
        self._thread: threading.Thread | None = None

    def start(self) -> "BackgroundServer":
        sockets = self._bind()
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": sockets},
                                        name=f"uvicorn-{self.host}:{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + self._start_timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ServerStartError(f"server on {self.host}:{self.port} did not start")
            time.sleep(0.01)
        return self

    def _bind(self) -> list[socket.socket]:
        sockets: list[socket.socket] = []
        try:
            for host in self.hosts:
                sockets.append(_listen(host, self.port))
                self.port = sockets[0].getsockname()[1]  # every address shares the first one's port
        except OSError as exc:
            for sock in sockets:
                sock.close()
            raise ServerStartError(f"cannot listen on {host}:{self.port} ({exc})") from exc
        return sockets

    def serving(self) -> bool:
        """Started, not told to stop, and its thread still running (a dead thread leaves its
        listening socket behind: connections would queue there unanswered)."""
        return bool(self._server.started and not self._server.should_exit
                    and self._thread is not None and self._thread.is_alive())

    def stop(self, timeout_s: float = 10.0) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout_s)


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket made with proto IPPROTO_TCP, not `socket.create_server`'s 0: asyncio
    turns Nagle off only on accepted sockets whose proto says TCP, and with Nagle on every
    streamed reply stalled ~40 ms on the client's delayed ACK (bench/gateway.py)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)
    except OSError:
        sock.close()
        raise
    return sock
