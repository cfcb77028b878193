//! A fixed-capacity ring buffer for "last N items" windows (log tails, moving averages).

pub mod ring;
pub mod stats;

pub use ring::RingBuffer;
