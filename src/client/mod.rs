//! The producer side (partitioners, batching) and the consumer side (fetching, offsets).
