"""C4: `sources` names the contract and the signed supplement, and not the draft (exit 1 = fail)."""

import json
import os
import sys

try:
    with open(os.path.join(os.environ["CLAWMARK_RESULTS"], "penalty.json"), encoding="utf-8") as handle:
        sources = [str(s) for s in json.load(handle).get("sources", [])]
except (OSError, ValueError, AttributeError) as exc:
    sys.exit(f"penalty.json unreadable: {exc}")
joined = " ".join(sources)
if "contract.md" not in joined or "补充协议二" not in joined:
    sys.exit(f"sources {sources} miss contract.md or 补充协议二.md")
if "草案" in joined or "补充协议三" in joined:
    sys.exit(f"sources {sources} rely on the unsigned draft")
print("contract + signed supplement")
