"""Oneshot service for zh_202_error_code: seeds the order store (SQLite) the task queries.

Deterministic: every row comes from the plan below, with times spread evenly in each window.
"""

import sqlite3
import sys
from datetime import datetime, timedelta
from pathlib import Path

# (start, end, status, error_code, is_test, count)
PLAN = [
    ("2026-03-13 18:00", "2026-03-13 23:59", "failed", "E502", 0, 35),   # the night before
    ("2026-03-14 08:00", "2026-03-14 17:59", "failed", "E118", 0, 40),   # daytime, not "that night"
    ("2026-03-14 08:00", "2026-03-14 23:59", "paid", None, 0, 120),
    ("2026-03-14 18:00", "2026-03-14 23:59", "failed", "E431", 0, 27),
    ("2026-03-14 18:00", "2026-03-14 23:59", "failed", "E502", 0, 19),
    ("2026-03-14 18:00", "2026-03-14 23:59", "failed", "E118", 0, 6),
    ("2026-03-14 19:00", "2026-03-14 21:00", "failed", "E502", 1, 30),   # load test traffic
    ("2026-03-15 00:00", "2026-03-15 02:00", "failed", "E431", 0, 9),    # after midnight
]
NOTES = [
    ("is_test", "is_test = 1 的订单是压测流量（3 月 14 日晚 19:00-21:00），任何业务统计都必须排除。"),
    ("created_at", "created_at 为北京时间，格式 YYYY-MM-DD HH:MM:SS。"),
]


def rows():
    number = 0
    for start, end, status, code, is_test, count in PLAN:
        first, last = (datetime.strptime(t, "%Y-%m-%d %H:%M") for t in (start, end))
        step = (last - first) / max(count, 1)
        for index in range(count):
            number += 1
            yield (f"O{number:05d}", (first + step * index).strftime("%Y-%m-%d %H:%M:%S"), status, code, is_test)


def main(target: str) -> None:
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, created_at TEXT, status TEXT, error_code TEXT, is_test INTEGER)")
        db.execute("CREATE TABLE notes (field TEXT, note TEXT)")
        db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", rows())
        db.executemany("INSERT INTO notes VALUES (?, ?)", NOTES)
    path.chmod(0o644)
    print(f"seeded {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp_workspace/clawbench/data/orders.db")
