"""The sockets the gateway and the scripted model listen on: every connection they accept has
Nagle off (a streamed reply otherwise waits ~40 ms for the client's delayed ACK), and a server
whose thread has died is known as not serving; a server started inside a flow run leaves the
process's logging alone."""

from __future__ import annotations

import asyncio
import logging
import socket

from clawmark.gateway.serving import BackgroundServer, _listen


def test_connections_accepted_on_the_listening_socket_have_nagle_off():
    async def accepted_nodelay() -> int:
        seen: asyncio.Future = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport):
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        server = await asyncio.get_running_loop().create_server(Probe, sock=_listen("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()
            server.close()

    assert asyncio.run(accepted_nodelay()) != 0


async def _app(scope, receive, send):
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def test_a_stopped_server_is_not_serving():
    server = BackgroundServer(_app).start()
    assert server.serving()
    server.stop()
    assert not server.serving()


async def _loop_app(scope, receive, send):
    if scope["type"] == "http":
        loop = type(asyncio.get_running_loop())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": f"{loop.__module__}.{loop.__name__}".encode()})


def test_requests_are_parsed_by_httptools_on_uvloop():
    """Not uvicorn's pure-Python fallback: h11 and the stock loop cost the gateway ~2x the CPU."""
    import httpx

    server = BackgroundServer(_loop_app).start()
    try:
        served_on = httpx.get(f"http://127.0.0.1:{server.port}/", timeout=10).text
        protocol = server._server.config.http_protocol_class
    finally:
        server.stop()
    assert served_on.startswith("uvloop")
    assert protocol.__name__ == "HttpToolsProtocol"


def test_starting_a_server_leaves_the_processs_log_handlers_alone():
    """uvicorn's own logging set-up (dictConfig) flushes and closes every handler of the process
    while it holds logging's lock: with Prefect's API log handler installed (a flow run) that
    deadlocked a sweep starting its gateway. Our servers log through whatever the process set up."""

    class Watched(logging.Handler):
        closed = flushed = False

        def flush(self) -> None:
            self.flushed = True

        def close(self) -> None:
            self.closed = True
            super().close()

        def emit(self, record: logging.LogRecord) -> None:
            pass

    watched = Watched()
    logging.getLogger("clawmark.test.watched").addHandler(watched)
    try:
        server = BackgroundServer(lambda scope, receive, send: None).start()
        server.stop()
    finally:
        logging.getLogger("clawmark.test.watched").removeHandler(watched)
    assert not watched.closed and not watched.flushed
