// Package lrucache is a small, non-concurrent least-recently-used cache of strings.
package lrucache

import "container/list"

type entry struct {
	key   string
	value string
}

// Cache holds at most Cap entries; adding one more evicts the least recently used.
type Cache struct {
	capacity int
	order    *list.List // front = most recently used
	items    map[string]*list.Element
	stats    Stats
}

// Stats counts lookups and evictions since the cache was created.
type Stats struct {
	Hits, Misses, Evictions int
}

// New returns an empty cache; capacity must be at least 1.
func New(capacity int) *Cache {
	if capacity < 1 {
		panic("lrucache: capacity must be at least 1")
	}
	return &Cache{capacity: capacity, order: list.New(), items: map[string]*list.Element{}}
}

// Put stores value under key, replacing any previous value.
func (c *Cache) Put(key, value string) {
	if el, ok := c.items[key]; ok {
		el.Value.(*entry).value = value
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&entry{key: key, value: value})
	if c.order.Len() > c.capacity {
		c.evictOldest()
	}
}

// Get returns the value stored under key.
func (c *Cache) Get(key string) (string, bool) {
	el, ok := c.items[key]
	if !ok {
		c.stats.Misses++
		return "", false
	}
	c.stats.Hits++
	return el.Value.(*entry).value, true
}

// Stats returns the counters so far.
func (c *Cache) Stats() Stats { return c.stats }

// Len is the number of entries held.
func (c *Cache) Len() int { return c.order.Len() }

func (c *Cache) evictOldest() {
	oldest := c.order.Back()
	c.order.Remove(oldest)
	delete(c.items, oldest.Value.(*entry).key)
	c.stats.Evictions++
}
