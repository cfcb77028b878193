"""C4: missing_meetings.md holds exactly the two expected lines, in time order (exit 1 = fail)."""

import os
import sys

path = os.path.join(os.environ["CLAWMARK_RESULTS"], "missing_meetings.md")
if not os.path.isfile(path):
    sys.exit("missing_meetings.md missing")
with open(path, encoding="utf-8") as handle:
    lines = [" ".join(l.strip().lstrip("-*").split()) for l in handle if l.strip()]
expected = ["2026-04-08 15:00 支付网关方案评审", "2026-04-10 16:00 续约沟通"]
if lines != expected:
    sys.exit(f"lines {lines}, expected {expected}")
print("exactly the two missing meetings, in order")
