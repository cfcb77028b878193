"""Background service for zh_205_inbox_digest: GET /events returns the user's calendar."""

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EVENTS = json.dumps([
    {"date": "2026-04-07", "time": "10:00", "title": "季度复盘"},
    {"date": "2026-04-11", "time": "14:00", "title": "团队建设"},
], ensure_ascii=False).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.rstrip("/") != "/events":
            self.send_error(404, "only /events exists")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(EVENTS)))
        self.end_headers()
        self.wfile.write(EVENTS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=18766)
    ThreadingHTTPServer(("127.0.0.1", parser.parse_args().port), Handler).serve_forever()
