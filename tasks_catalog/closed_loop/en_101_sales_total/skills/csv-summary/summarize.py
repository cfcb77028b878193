"""csv-summary: total and group sums of a CSV column, with a digest of the input file."""

import argparse
import csv
import hashlib
import json
from decimal import Decimal


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--sum", required=True)
    parser.add_argument("--by")
    parser.add_argument("--where", action="append", default=[])
    args = parser.parse_args()
    wanted = [tuple(w.split("=", 1)) for w in args.where]
    with open(args.file, newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if all(r.get(k) == v for k, v in wanted)]
    total = sum((Decimal(r[args.sum]) for r in rows), Decimal("0"))
    groups: dict[str, Decimal] = {}
    for row in rows if args.by else []:
        groups[row[args.by]] = groups.get(row[args.by], Decimal("0")) + Decimal(row[args.sum])
    with open(args.file, "rb") as handle:
        digest = hashlib.sha256(handle.read() + "|".join(sorted(args.where)).encode()).hexdigest()[:12]
    print(json.dumps({
        "file": args.file, "rows_used": len(rows), "total": f"{total:.2f}",
        "groups": {k: f"{v:.2f}" for k, v in sorted(groups.items())},
        "top_group": max(groups, key=groups.get) if groups else None, "digest": digest,
    }, indent=2))


if __name__ == "__main__":
    main()
