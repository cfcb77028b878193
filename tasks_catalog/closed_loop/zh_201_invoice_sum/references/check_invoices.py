"""CP3: invoices.csv lists exactly the three bookable invoices, once each (exit 1 = fail)."""

import csv
import os
import sys

path = os.path.join(os.environ["CLAWMARK_RESULTS"], "invoices.csv")
if not os.path.isfile(path):
    sys.exit("invoices.csv missing")
with open(path, encoding="utf-8-sig", newline="") as handle:
    numbers = [row.get("号码", "").strip() for row in csv.DictReader(handle)]
expected = ["INV-0301", "INV-0302", "INV-0303"]
if sorted(numbers) != expected:
    sys.exit(f"listed {numbers}, expected {expected} once each")
print("three bookable invoices, once each")
