"""Tiny read-only helpdesk API for en_105_ticket_sync: GET /tickets returns tickets.json."""

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TICKETS = (Path(__file__).parent / "tickets.json").read_bytes()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.rstrip("/") != "/tickets":
            self.send_error(404, "only /tickets exists")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(TICKETS)))
        self.end_headers()
        self.wfile.write(TICKETS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=18765)
    port = parser.parse_args().port
    json.loads(TICKETS)  # refuse to start on a corrupt fixture
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
