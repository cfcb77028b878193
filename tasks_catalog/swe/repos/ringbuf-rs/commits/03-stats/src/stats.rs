//! Window statistics over a ring buffer of numbers.

use crate::RingBuffer;

/// The mean of the items, or None when empty.
pub fn mean(ring: &RingBuffer<f64>) -> Option<f64> {
    if ring.is_empty() {
        return None;
    }
    let items = ring.to_vec();
    Some(items.iter().sum::<f64>() / items.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_window() {
        let mut ring = RingBuffer::new(3);
        assert_eq!(mean(&ring), None);
        ring.extend(vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(mean(&ring), Some(3.0));
    }
}
