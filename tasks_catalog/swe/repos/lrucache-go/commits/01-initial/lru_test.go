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
