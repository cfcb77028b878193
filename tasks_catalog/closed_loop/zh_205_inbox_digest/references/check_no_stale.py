"""C3: the void time 2026-04-09 09:30 is not listed (exit 1 = fail)."""

import os
import sys

path = os.path.join(os.environ["CLAWMARK_RESULTS"], "missing_meetings.md")
text = open(path, encoding="utf-8").read() if os.path.isfile(path) else ""
if not text or "2026-04-09 09:30" in text:
    sys.exit("missing file or the void 2026-04-09 09:30 is listed")
print("no void time")
