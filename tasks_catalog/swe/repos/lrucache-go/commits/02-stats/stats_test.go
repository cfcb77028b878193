package lrucache

import "testing"

func TestStats(t *testing.T) {
	c := New(1)
	c.Put("a", "1")
	c.Get("a")
	c.Get("b")
	c.Put("b", "2")
	cases := []struct {
		name      string
		got, want int
	}{
		{"hits", c.Stats().Hits, 1},
		{"misses", c.Stats().Misses, 1},
		{"evictions", c.Stats().Evictions, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
}
