package lrucache

import "testing"

func TestPutAndGet(t *testing.T) {
	c := New(2)
	c.Put("a", "1")
	if v, ok := c.Get("a"); !ok || v != "1" {
		t.Fatalf("Get(a) = %q, %v; want 1, true", v, ok)
	}
	if _, ok := c.Get("missing"); ok {
		t.Fatal("Get(missing) reported a hit")
	}
}

func TestEvictsOldestWhenFull(t *testing.T) {
	c := New(2)
	c.Put("a", "1")
	c.Put("b", "2")
	c.Put("c", "3")
	if _, ok := c.Get("a"); ok {
		t.Fatal("a should have been evicted")
	}
	if c.Len() != 2 {
		t.Fatalf("Len() = %d, want 2", c.Len())
	}
}

func TestPutReplacesValue(t *testing.T) {
	c := New(2)
	c.Put("a", "1")
	c.Put("a", "2")
	if v, _ := c.Get("a"); v != "2" || c.Len() != 1 {
		t.Fatalf("Get(a) = %q, Len() = %d; want 2, 1", v, c.Len())
	}
}

func TestGetKeepsEntryAlive(t *testing.T) {
	c := New(2)
	c.Put("a", "1")
	c.Put("b", "2")
	c.Get("a") // a is now the most recently used; b must go next
	c.Put("c", "3")
	if _, ok := c.Get("a"); !ok {
		t.Fatal("a was evicted although it was read just before c was added")
	}
	if _, ok := c.Get("b"); ok {
		t.Fatal("b should have been evicted")
	}
}

func TestEvictionOrderFollowsReads(t *testing.T) {
	cases := []struct {
		name  string
		reads []string
		want  string // the key the next Put must evict
	}{
		{"read_a", []string{"a"}, "b"},
		{"read_a_b", []string{"a", "b"}, "c"},
		{"read_c_b_a", []string{"c", "b", "a"}, "c"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(3)
			for _, k := range []string{"a", "b", "c"} {
				c.Put(k, k)
			}
			for _, k := range tc.reads {
				c.Get(k)
			}
			c.Put("d", "d")
			if _, ok := c.items[tc.want]; ok {
				t.Fatalf("%s should have been evicted", tc.want)
			}
		})
	}
}
