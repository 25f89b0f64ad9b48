//! The few pieces of the JVM whose behaviour leaks into Kafka's assignment results: `String`
//! hashing, `java.util.HashMap`/`HashSet` iteration order and `Utils.abs` (`Uuid`'s hash and
//! order are [`crate::common::Uuid`]'s).
//!
//! Kafka's assignors iterate hash maps in places where the iteration order decides who keeps a
//! partition (see `spec/kafka-assignors.md` §1.3). A `java.util.HashMap` iterates its table by
//! ascending bucket (`spread(hash) & (capacity - 1)`) and, within a bucket, in insertion order (a
//! resize split keeps the relative order). So the order of a map is a pure function of the keys'
//! hashes, the final table size and the insertion order, which is what this module computes.

use std::cmp::Ordering;

/// `java.lang.String.hashCode`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 code units, wrapping.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `TopicPartition.hashCode`: `31 * (31 + partition) + topic.hashCode()`.
pub fn topic_partition_hash(topic_hash: i32, partition: i32) -> i32 {
    31i32
        .wrapping_mul(31i32.wrapping_add(partition))
        .wrapping_add(topic_hash)
}

/// `HashMap.hash`: the key's hash with its high half folded into the low half.
pub fn spread(h: i32) -> u32 {
    let h = h as u32;
    h ^ (h >> 16)
}

/// `HashMap.tableSizeFor`: the next power of two at or above `n` (at least 1).
pub fn table_size_for(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// The table size a `HashMap` created with table size `initial` reaches after `n` insertions
/// (it doubles whenever the size exceeds three quarters of the table).
pub fn capacity_after(initial: usize, n: usize) -> usize {
    let mut cap = table_size_for(initial);
    // threshold = cap * 0.75; a resize happens when ++size > threshold.
    while n * 4 > cap * 3 {
        cap *= 2;
    }
    cap
}

/// The table size of `new HashSet<>(collection)` (and of `HashMap` copies on JDK ≤ 18):
/// `max((int)(n / .75f) + 1, 16)`.
pub fn copy_capacity(n: usize) -> usize {
    // (int)(n / .75f) + 1 computed exactly enough for the sizes we meet.
    let sized = (n as f32 / 0.75f32) as usize + 1;
    table_size_for(sized.max(16))
}

/// The iteration order of a `java.util.HashMap` holding keys with hashes `hashes` (given in
/// insertion order, no key removed) and table size `capacity`: indices into `hashes`.
pub fn hash_order(hashes: &[i32], capacity: usize) -> Vec<usize> {
    let mask = capacity.saturating_sub(1) as u32;
    let mut idx: Vec<usize> = (0..hashes.len()).collect();
    idx.sort_by_key(|&i| hashes.get(i).map_or(0, |&h| spread(h) & mask));
    idx
}

/// The iteration order of a default `new HashMap<>()` (table size 16, growing) keyed by strings
/// inserted in the order given: indices into `keys`.
pub fn string_map_order<S: AsRef<str>>(keys: &[S]) -> Vec<usize> {
    let hashes: Vec<i32> = keys.iter().map(|k| string_hash(k.as_ref())).collect();
    hash_order(&hashes, capacity_after(16, keys.len()))
}

/// `Utils.abs`: like `Math.abs`, except that `Integer.MIN_VALUE` maps to 0.
pub fn utils_abs(n: i32) -> i32 {
    if n == i32::MIN {
        0
    } else {
        n.abs()
    }
}

/// The `__consumer_offsets` partition that hosts a group: `Utils.abs(groupId.hashCode()) % n`.
pub fn coordinator_partition(group_id: &str, offsets_topic_partitions: u32) -> u32 {
    let n = offsets_topic_partitions.max(1);
    utils_abs(string_hash(group_id)).unsigned_abs() % n
}

/// `String.compareTo`: UTF-16 code-unit order (equal to byte order except for supplementary
/// characters versus U+E000..U+FFFF).
pub fn compare_strings(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A `java.util.HashSet` whose only observable behaviour we need is `iterator().next()` after a
/// history of adds and removes: the element in the lowest bucket, earliest inserted within it.
#[derive(Debug, Clone, Default)]
pub struct HashSetEmu<T> {
    entries: Vec<(T, i32, u64)>,
    capacity: usize,
    seq: u64,
}

impl<T: PartialEq + Copy> HashSetEmu<T> {
    /// An empty `new HashSet<>()` (table size 16).
    pub fn new() -> Self {
        Self {
            entries: Vec::new(),
            capacity: 16,
            seq: 0,
        }
    }

    /// `add`: appends to its bucket's chain unless present; grows the table as Java does.
    pub fn insert(&mut self, value: T, hash: i32) {
        if self.entries.iter().any(|(v, _, _)| *v == value) {
            return;
        }
        self.seq += 1;
        self.entries.push((value, hash, self.seq));
        if self.entries.len() * 4 > self.capacity * 3 {
            self.capacity *= 2;
        }
    }

    /// `remove`.
    pub fn remove(&mut self, value: &T) {
        self.entries.retain(|(v, _, _)| v != value);
    }

    /// `isEmpty`.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `iterator().next()`.
    pub fn first(&self) -> Option<T> {
        let mask = (self.capacity - 1) as u32;
        self.entries
            .iter()
            .min_by_key(|(_, h, seq)| (spread(*h) & mask, *seq))
            .map(|(v, _, _)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_is_javas() {
        assert_eq!(string_hash("my-group"), -1906497762);
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(coordinator_partition("polygenelubricants", 50), 0);
        assert_eq!(coordinator_partition("日本語", 50), 43);
    }

    #[test]
    fn hash_map_order_follows_buckets_then_insertion() {
        // "consumer3", "consumer2", "consumer1" is the HashMap order the sticky vectors rely on.
        let order = string_map_order(&["consumer1", "consumer2", "consumer3"]);
        assert_eq!(order, vec![2, 1, 0]);
        assert_eq!(capacity_after(16, 12), 16);
        assert_eq!(capacity_after(16, 13), 32);
        assert_eq!(copy_capacity(3), 16);
    }

    #[test]
    fn hash_set_first_is_lowest_bucket_then_oldest() {
        let mut s = HashSetEmu::new();
        s.insert(18u32, 18); // bucket 2
        s.insert(1, 1); // bucket 1
        s.insert(17, 17); // bucket 1, after 1
        assert_eq!(s.first(), Some(1));
        s.remove(&1);
        assert_eq!(s.first(), Some(17));
        s.insert(1, 1); // back at the tail of bucket 1
        assert_eq!(s.first(), Some(17));
    }
}
