package logday

import "sort"

// Event is one log line with its Unix timestamp.
type Event struct {
	TS   int64
	Line string
}

// GroupByDay buckets events by local calendar day, keeping their order within a day.
func GroupByDay(events []Event) map[string][]Event {
	days := map[string][]Event{}
	for _, e := range events {
		day := Day(e.TS)
		days[day] = append(days[day], e)
	}
	return days
}

// SortedDays lists the days of a grouping in ascending order.
func SortedDays(days map[string][]Event) []string {
	keys := make([]string, 0, len(days))
	for k := range days {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
