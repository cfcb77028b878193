package logday

import "testing"

// Timestamps are read in local time; the test command runs with TZ=UTC.
const (
	jan1Noon    = int64(1704110400) // 2024-01-01 12:00:00 UTC
	jan1Late    = int64(1704151800) // 2024-01-01 23:30:00 UTC
	jan2Early   = int64(1704154200) // 2024-01-02 00:10:00 UTC
	jan5Morning = int64(1704445200) // 2024-01-05 09:00:00 UTC
)

func TestDay(t *testing.T) {
	if got := Day(jan1Late); got != "2024-01-01" {
		t.Fatalf("Day(jan1Late) = %s", got)
	}
	if got := Day(jan2Early); got != "2024-01-02" {
		t.Fatalf("Day(jan2Early) = %s", got)
	}
}

func TestDaysBetweenSameDay(t *testing.T) {
	if got := DaysBetween(jan1Noon, jan1Late); got != 0 {
		t.Fatalf("got %d, want 0", got)
	}
}

func TestDaysBetweenWholeDays(t *testing.T) {
	if got := DaysBetween(jan1Noon, jan1Noon+3*86400); got != 3 {
		t.Fatalf("got %d, want 3", got)
	}
}

func TestDaysBetweenAcrossMidnight(t *testing.T) {
	if got := DaysBetween(jan1Late, jan2Early); got != 1 {
		t.Fatalf("23:30 -> 00:10 next day: got %d, want 1", got)
	}
	if got := DaysBetween(jan2Early, jan1Late); got != -1 {
		t.Fatalf("backwards: got %d, want -1", got)
	}
}

func TestDaysBetweenIgnoresTimeOfDay(t *testing.T) {
	if got := DaysBetween(jan1Late, jan5Morning); got != 4 {
		t.Fatalf("got %d, want 4", got)
	}
}
