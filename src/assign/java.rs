//! The few pieces of the JVM whose behaviour leaks into Kafka's assignment results: `String`
//! hashing, `java.util.HashMap`/`HashSet` iteration order, `Uuid` and `Utils.abs`.
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

/// A Kafka `Uuid`: two signed 64-bit halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uuid {
    /// The most significant half.
    pub msb: i64,
    /// The least significant half.
    pub lsb: i64,
}

impl Uuid {
    /// Parses Kafka's text form: 16 bytes in URL-safe base64 without padding.
    pub fn parse(s: &str) -> Option<Uuid> {
        use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
        use base64::Engine;
        // Java's decoder ignores the unused low bits of the last character; so must we.
        const LENIENT: GeneralPurpose = GeneralPurpose::new(
            &base64::alphabet::URL_SAFE,
            GeneralPurposeConfig::new()
                .with_encode_padding(false)
                .with_decode_allow_trailing_bits(true)
                .with_decode_padding_mode(DecodePaddingMode::Indifferent),
        );
        let bytes = LENIENT.decode(s).ok()?;
        let arr: [u8; 16] = bytes.try_into().ok()?;
        let (hi, lo) = arr.split_at(8);
        Some(Uuid {
            msb: i64::from_be_bytes(hi.try_into().ok()?),
            lsb: i64::from_be_bytes(lo.try_into().ok()?),
        })
    }

    /// A deterministic id for a topic without one (a data directory that has no
    /// `partition.metadata`): the name's bytes folded into 16 bytes.
    pub fn from_name(name: &str) -> Uuid {
        let mut a: u64 = 0xcbf2_9ce4_8422_2325;
        let mut b: u64 = 0x8422_2325_cbf2_9ce4;
        for byte in name.bytes() {
            a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
            b = (b ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b5);
        }
        Uuid {
            msb: a as i64,
            lsb: b as i64,
        }
    }

    /// Kafka's text form.
    pub fn to_base64(self) -> String {
        use base64::Engine;
        let mut bytes = [0u8; 16];
        let (hi, lo) = bytes.split_at_mut(8);
        hi.copy_from_slice(&self.msb.to_be_bytes());
        lo.copy_from_slice(&self.lsb.to_be_bytes());
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// `Uuid.hashCode`: `(int)(x >> 32) ^ (int)x` with `x = msb ^ lsb`.
    pub fn java_hash(self) -> i32 {
        let x = self.msb ^ self.lsb;
        ((x >> 32) as i32) ^ (x as i32)
    }

    /// `Uuid.compareTo`: msb, then lsb, as signed longs.
    pub fn java_cmp(self, other: Uuid) -> Ordering {
        self.msb.cmp(&other.msb).then(self.lsb.cmp(&other.lsb))
    }
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
