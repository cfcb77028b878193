"""C2: `database` names PostgreSQL (any version/case) and no trap database (exit 1 = fail)."""

import json
import os
import sys

try:
    with open(os.path.join(os.environ["CLAWMARK_RESULTS"], "decision.json"), encoding="utf-8") as handle:
        database = str(json.load(handle).get("database", ""))
except (OSError, ValueError) as exc:
    sys.exit(f"decision.json unreadable: {exc}")
name = database.lower()
if "postgres" not in name or any(t in name for t in ("cockroach", "mongo", "dynamo")):
    sys.exit(f"database is {database!r}, expected PostgreSQL")
print(f"database {database!r}")
