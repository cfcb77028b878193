//! The ring buffer: pushing into a full buffer overwrites the oldest item.

#[derive(Debug, Clone)]
pub struct RingBuffer<T> {
    slots: Vec<T>,
    capacity: usize,
    next: usize, // slot the next push writes to once the buffer is full
}

impl<T: Clone> RingBuffer<T> {
    /// An empty buffer holding at most `capacity` items (at least 1).
    pub fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "capacity must be at least 1");
        RingBuffer { slots: Vec::with_capacity(capacity), capacity, next: 0 }
    }

    /// Adds `item`, overwriting the oldest one when full.
    pub fn push(&mut self, item: T) {
        if self.slots.len() < self.capacity {
            self.slots.push(item);
        } else {
            self.slots[self.next] = item;
        }
        self.next = (self.next + 1) % self.capacity;
    }

    /// Pushes every item of `items` in order.
    pub fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.push(item);
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.slots.len() == self.capacity
    }

    /// The items from oldest to newest.
    pub fn to_vec(&self) -> Vec<T> {
        self.slots.clone()
    }

    /// The most recently pushed item.
    pub fn last(&self) -> Option<&T> {
        if self.slots.is_empty() {
            return None;
        }
        let index = (self.next + self.capacity - 1) % self.capacity;
        self.slots.get(index)
    }
}

#[cfg(test)]
mod tests;
