// Package logday turns Unix timestamps of log events into calendar days in local time
// (the TZ environment variable decides which zone that is).
package logday

import (
	"math"
	"time"
)

// DayLayout is how days are written: 2006-01-02.
const DayLayout = "2006-01-02"

// Day is the local calendar day of a Unix timestamp (seconds).
func Day(ts int64) string {
	return time.Unix(ts, 0).Format(DayLayout)
}

// DaysBetween is the number of calendar days from the day of a to the day of b
// (0 for the same day, negative when b is earlier).
func DaysBetween(a, b int64) int {
	// Compare local midnights, not elapsed seconds: 23:30 -> 00:10 is one calendar day apart.
	// Rounding absorbs the 23- or 25-hour days of daylight-saving changes.
	hours := midnight(b).Sub(midnight(a)).Hours()
	return int(math.Round(hours / 24))
}

func midnight(ts int64) time.Time {
	t := time.Unix(ts, 0)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}
