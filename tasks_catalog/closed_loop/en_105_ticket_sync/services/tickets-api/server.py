"""Helpdesk API for en_105_ticket_sync (stdlib only, run as root from its folder).

GET  /                      what the API offers
GET  /tickets?page=N        five tickets a page, with `next` (null on the last page)
POST /tickets/ID/labels     body {"label": "..."}; answers with a receipt the caller keeps
Every request is logged to /tmp_workspace/clawbench/logs/tickets-api.log.
"""

import argparse
import hashlib
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

TICKETS = json.loads((Path(__file__).parent / "tickets.json").read_text(encoding="utf-8"))
SALT = "clawmark-en105"  # receipts cannot be made up without calling the API
PAGE = 5
ABOUT = {"endpoints": ["GET /tickets?page=N", "POST /tickets/ID/labels {\"label\": str}"],
         "notes": ["Tickets are paginated: follow `next` until it is null.",
                   "Tickets with deleted=true were merged into another ticket; ignore them."]}
LOG = Path("/tmp_workspace/clawbench/logs/tickets-api.log")


def receipt(ticket_id: int, label: str) -> str:
    return hashlib.sha256(f"{SALT}:{ticket_id}:{label}".encode()).hexdigest()[:10]


class Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        with LOG.open("a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%H:%M:%S')} {self.command} {self.path} {fmt % args}\n")

    def do_GET(self):
        url = urlparse(self.path)
        if url.path.rstrip("/") == "":
            return self._send(200, ABOUT)
        if url.path.rstrip("/") != "/tickets":
            return self._send(404, {"error": "unknown path; GET / lists the endpoints"})
        page = int((parse_qs(url.query).get("page") or ["1"])[0])
        chunk = TICKETS[(page - 1) * PAGE: page * PAGE]
        more = page * PAGE < len(TICKETS)
        self._send(200, {"page": page, "tickets": chunk, "next": f"/tickets?page={page + 1}" if more else None})

    def do_POST(self):
        parts = urlparse(self.path).path.strip("/").split("/")
        known = {t["id"] for t in TICKETS if not t["deleted"]}
        if len(parts) != 3 or parts[0] != "tickets" or parts[2] != "labels" or not parts[1].isdigit():
            return self._send(404, {"error": "POST /tickets/ID/labels"})
        if int(parts[1]) not in known:
            return self._send(404, {"error": f"no ticket {parts[1]}"})
        length = int(self.headers.get("Content-Length") or 0)
        try:
            label = str(json.loads(self.rfile.read(length) or b"{}")["label"])
        except (ValueError, KeyError):
            return self._send(400, {"error": "body must be JSON {\"label\": str}"})
        self._send(201, {"id": int(parts[1]), "label": label, "receipt": receipt(int(parts[1]), label)})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument("--log", type=Path, default=LOG)
    args = parser.parse_args()
    LOG = args.log
    LOG.parent.mkdir(parents=True, exist_ok=True)
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
