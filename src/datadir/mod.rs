//! A data directory: topics, partitions, configs, name rules, the lock and metadata files.
