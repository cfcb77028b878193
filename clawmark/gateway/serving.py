"""Run an ASGI app with uvicorn in a background thread; `start()` returns once it listens."""

from __future__ import annotations

import threading
import time

import uvicorn


class ServerStartError(RuntimeError):
    """uvicorn did not come up (port taken, bad host) within the deadline."""


class BackgroundServer:
    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, *, start_timeout_s: float = 15.0):
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                lifespan="auto", timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=f"uvicorn-{host}:{port}", daemon=True)
        self._start_timeout_s = start_timeout_s
        self.host = host
        self.port = port

    def start(self) -> "BackgroundServer":
        self._thread.start()
        deadline = time.monotonic() + self._start_timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ServerStartError(f"server on {self.host}:{self.port} did not start (port in use?)")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout_s)
