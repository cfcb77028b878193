package logday

import "testing"

func TestLongestStreak(t *testing.T) {
	cases := []struct {
		name string
		ts   []int64
		want int
	}{
		{"empty", nil, 0},
		{"one_event", []int64{jan1Noon}, 1},
		{"gap_resets", []int64{jan1Noon, jan1Noon + 86400, jan5Morning}, 2},
		{"late_then_early", []int64{jan1Late, jan2Early}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LongestStreak(tc.ts); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}
