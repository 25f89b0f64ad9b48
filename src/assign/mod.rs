//! Kafka's consumer-group assignors and the rebalance simulator: pure functions over plain data.
