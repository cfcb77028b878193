package logday

// LongestStreak is the longest run of consecutive calendar days with at least one event.
// Timestamps must be in ascending order.
func LongestStreak(timestamps []int64) int {
	if len(timestamps) == 0 {
		return 0
	}
	best, run := 1, 1
	for i := 1; i < len(timestamps); i++ {
		switch DaysBetween(timestamps[i-1], timestamps[i]) {
		case 0:
		case 1:
			run++
		default:
			run = 1
		}
		if run > best {
			best = run
		}
	}
	return best
}
