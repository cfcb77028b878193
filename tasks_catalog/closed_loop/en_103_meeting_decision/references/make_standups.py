"""Writes sources/standups.md for en_103_meeting_decision (deterministic; run from the task folder).

Six people, every weekday of 2026-01-05..2026-06-30, three to six lines a day, with the
decision thread (proposal, decision, a revision that is rolled back, a later re-ask) placed in
the middle of ordinary noise.
"""

from datetime import date, timedelta
from pathlib import Path

PEOPLE = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah"]
CHORES = ["reviewed open tickets", "fixed a flaky CI test", "updated the runbook", "paired on the export job",
          "discussed the on-call rota", "cleaned up feature flags", "triaged customer bugs", "wrote the retro notes",
          "benchmarked the search index", "tuned the cache TTLs", "reviewed the Q2 roadmap", "rotated the API keys"]
THREAD = {
    date(2026, 1, 21): "Note: Proposal: migrate the orders store from MySQL to MongoDB. No decision yet.",
    date(2026, 2, 3): "Note: Spike on MongoDB vs PostgreSQL started; Bob owns it.",
    date(2026, 2, 24): "Note: DECISION: we migrate the orders store to PostgreSQL 16. MongoDB proposal withdrawn.",
    date(2026, 3, 19): "Note: DECISION REVISED: migration target changes to CockroachDB (pending the licence review).",
    date(2026, 3, 23): "Note: Licence review failed; the CockroachDB revision is rolled back. The 2026-02-24 "
                       "decision (PostgreSQL 16) stands.",
    date(2026, 4, 14): "Note: Someone asked about DynamoDB for the orders store; answer: no, the decision stands.",
    date(2026, 5, 6): "Note: Reminder: DECISION log entries live in these notes; the wiki page is out of date "
                      "(it still says MongoDB).",
}


def lines() -> list[str]:
    out = ["# Stand-up notes, H1 2026", ""]
    day, index = date(2026, 1, 5), 0
    while day <= date(2026, 6, 30):
        if day.weekday() < 5:
            out.append(f"## {day.isoformat()}")
            for offset in range(3 + index % 4):
                person = PEOPLE[(index + offset) % len(PEOPLE)]
                out.append(f"- {person}: {CHORES[(index * 7 + offset * 5) % len(CHORES)]}.")
            if day in THREAD:
                out.append(f"- {THREAD[day]}")
            out.append("")
            index += 1
        day += timedelta(days=1)
    return out


if __name__ == "__main__":
    Path("sources/standups.md").write_text("\n".join(lines()) + "\n", encoding="utf-8")
