//! The one error type of the record format.

/// Why bytes could not be read as Kafka batches or records.
///
/// Every variant carries `position`: the byte offset in the slice that was handed to the
/// reader (for [`batches`](super::batches), the slice of the segment), so a caller that knows
/// where the slice starts in a file can add that and point at the exact byte. Errors found inside
/// a decompressed record stream are wrapped in [`RecordError::InDecompressed`], whose position is
/// the start of the compressed bytes in the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Fewer bytes remain than a field needs.
    #[error("truncated {what} at byte {position}: needs {needed} bytes, {remaining} remain")]
    Truncated {
        /// Where the field starts.
        position: usize,
        /// The field being read.
        what: &'static str,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left in the input from `position`.
        remaining: usize,
    },
    /// A log entry's size field is below the smallest legal entry (Kafka's `CorruptRecordException`).
    #[error(
        "Found record size {size} smaller than minimum record overhead (14) at byte {position}"
    )]
    RecordSizeTooSmall {
        /// Start of the log entry (its offset field).
        position: usize,
        /// The size field as stored.
        size: i32,
    },
    /// A magic-2 batch too short to hold its 61-byte header.
    #[error(
        "batch at byte {position} has size {size}, smaller than the magic v2 batch header (61)"
    )]
    BatchTooSmall {
        /// Start of the batch.
        position: usize,
        /// `LOG_OVERHEAD + batchLength`.
        size: usize,
    },
    /// A magic byte no Kafka version writes.
    #[error("unknown magic {magic} at byte {position}")]
    UnknownMagic {
        /// Position of the magic byte's entry.
        position: usize,
        /// The magic byte.
        magic: i8,
    },
    /// The stored checksum differs from the one computed over the bytes.
    #[error(
        "Record is corrupt (stored crc = {stored}, computed crc = {computed}) at byte {position}"
    )]
    CrcMismatch {
        /// Start of the batch or message.
        position: usize,
        /// The CRC stored in the header.
        stored: u32,
        /// The CRC of the bytes.
        computed: u32,
    },
    /// A varint whose 5th byte has its high bit set.
    #[error("Varint is too long, the most significant bit in the 5th byte is set, converted value: {value:x} (at byte {position})")]
    VarintTooLong {
        /// Start of the varint.
        position: usize,
        /// The bits read so far.
        value: u32,
    },
    /// A varlong whose 10th byte has its high bit set.
    #[error("Varlong is too long, most significant bit in the 10th byte is set, converted value: {value:x} (at byte {position})")]
    VarlongTooLong {
        /// Start of the varlong.
        position: usize,
        /// The bits read so far.
        value: u64,
    },
    /// Attribute bits 0–2 hold a codec id Kafka does not know.
    #[error("Unknown compression type id: {id} (at byte {position})")]
    UnknownCompression {
        /// Start of the batch (0 when not read from bytes).
        position: usize,
        /// The codec id.
        id: i32,
    },
    /// A timestamp type id other than -1, 0 or 1.
    #[error("Unknown timestamp type id: {id} (at byte {position})")]
    UnknownTimestampType {
        /// 0 unless read from bytes.
        position: usize,
        /// The id.
        id: i32,
    },
    /// A v2 batch header's record count is negative.
    #[error("Found invalid record count {count} in magic v2 batch at byte {position}")]
    InvalidRecordCount {
        /// Start of the batch.
        position: usize,
        /// The count as stored.
        count: i32,
    },
    /// Bytes remain after the declared number of records.
    #[error("Incorrect declared batch size, records still remaining in file (at byte {position})")]
    RecordsRemaining {
        /// First byte after the last declared record.
        position: usize,
    },
    /// The records end before the declared count is reached.
    #[error("Incorrect declared batch size, premature EOF reached (at byte {position})")]
    PrematureEof {
        /// Where the next record should have started.
        position: usize,
    },
    /// A record's length varint is negative or larger than the bytes left.
    #[error("Invalid record size: expected {expected} bytes in record payload, but instead the buffer has only {remaining} remaining bytes (record at byte {position})")]
    InvalidRecordSize {
        /// Start of the record.
        position: usize,
        /// The record's length field.
        expected: i32,
        /// Bytes left after the length field.
        remaining: usize,
    },
    /// A record's fields did not add up to its length field.
    #[error("Invalid record size: expected to read {expected} bytes in record payload, but instead read {read} (record at byte {position})")]
    RecordSizeMismatch {
        /// Start of the record.
        position: usize,
        /// The record's length field.
        expected: usize,
        /// Bytes its fields used.
        read: usize,
    },
    /// A negative record header count, or one larger than the bytes left.
    #[error("Found invalid number of record headers {count} at byte {position}")]
    InvalidHeaderCount {
        /// Position of the count.
        position: usize,
        /// The count.
        count: i32,
    },
    /// A record header key with a negative length.
    #[error("Invalid negative header key size {size} at byte {position}")]
    InvalidHeaderKeySize {
        /// Position of the length.
        position: usize,
        /// The length.
        size: i32,
    },
    /// Decompression failed or the compressed stream is malformed.
    #[error("corrupt {codec} data at byte {position}: {message}")]
    Decompression {
        /// Start of the compressed bytes.
        position: usize,
        /// The codec.
        codec: &'static str,
        /// What the decoder said.
        message: String,
    },
    /// Compressing records failed (the encoders only fail on resource exhaustion).
    #[error("{codec} compression failed: {message}")]
    Compression {
        /// Always 0: nothing was read.
        position: usize,
        /// The codec.
        codec: &'static str,
        /// What the encoder said.
        message: String,
    },
    /// The decompressed records exceed the allowed size (a decompression bomb, or a limit set too low).
    #[error(
        "decompressed data of the batch at byte {position} exceeds the limit of {limit} bytes"
    )]
    DecompressedTooLarge {
        /// Start of the compressed bytes.
        position: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// An error inside a decompressed record stream; its own position counts from the start of
    /// the decompressed bytes.
    #[error("in the records decompressed from byte {position}: {source}")]
    InDecompressed {
        /// Start of the compressed bytes in the input.
        position: usize,
        /// The error, positioned within the decompressed bytes.
        #[source]
        source: Box<RecordError>,
    },
    /// A codec that cannot appear with this magic (zstd in a v0/v1 wrapper).
    #[error("Invalid wrapper compressionType found in legacy deep record iterator {magic} (at byte {position})")]
    InvalidWrapperCompression {
        /// Start of the wrapper.
        position: usize,
        /// The wrapper's magic.
        magic: i8,
    },
    /// A compressed legacy wrapper with a null value.
    #[error(
        "Found invalid compressed record set with null value (magic = {magic}) at byte {position}"
    )]
    NullWrapperValue {
        /// Start of the wrapper.
        position: usize,
        /// The wrapper's magic.
        magic: i8,
    },
    /// A compressed legacy wrapper holding no message.
    #[error("Found invalid compressed record set with no inner records at byte {position}")]
    EmptyWrapper {
        /// Start of the wrapper.
        position: usize,
    },
    /// A legacy inner message that is itself compressed.
    #[error("Inner messages must not be compressed (at byte {position})")]
    CompressedInnerMessage {
        /// Start of the inner entry in the decompressed bytes.
        position: usize,
    },
    /// A v1 wrapper whose offset is below its last inner offset and is not 0.
    #[error("Found invalid wrapper offset in compressed v1 message set, wrapper offset '{wrapper_offset}' is less than the last inner message offset '{last_inner_offset}' and it is not zero (at byte {position})")]
    InvalidWrapperOffset {
        /// Start of the wrapper.
        position: usize,
        /// The wrapper's offset.
        wrapper_offset: i64,
        /// The last inner message's relative offset.
        last_inner_offset: i64,
    },
    /// A record of a control batch whose key is not a control record key.
    #[error("Invalid value size found for end control record key. Must have at least 4 bytes, but found only {size} (at byte {position})")]
    InvalidControlKey {
        /// Position of the key (0 when decoding a detached key).
        position: usize,
        /// The key's length (-1 for null).
        size: i32,
    },
    /// An end-transaction marker value shorter than 6 bytes.
    #[error("Invalid value size found for end transaction marker. Must have at least 6 bytes, but found only {size} (at byte {position})")]
    InvalidEndTxnMarker {
        /// Position of the value (0 when decoding a detached value).
        position: usize,
        /// The value's length (-1 for null).
        size: i32,
    },
    /// A control key or marker value with a negative version.
    #[error("Invalid version found for {what}: {version} (at byte {position})")]
    NegativeControlVersion {
        /// Position of the version (0 when decoding detached bytes).
        position: usize,
        /// Which structure.
        what: &'static str,
        /// The version.
        version: i16,
    },
    /// An end-transaction marker was asked of a control type that is neither COMMIT nor ABORT.
    #[error("control record type {type_id} is not an end transaction marker (at byte {position})")]
    NotEndTxnMarker {
        /// 0: raised when encoding or interpreting, not reading.
        position: usize,
        /// The control type id.
        type_id: i16,
    },
    /// The operation needs a magic v2 batch.
    #[error("magic {magic} entry at byte {position} is not a v2 batch")]
    NotV2 {
        /// Start of the entry.
        position: usize,
        /// Its magic.
        magic: i8,
    },
    /// A built batch over the format's limit (its length field is an `int`).
    #[error("a batch of {size} bytes is larger than a batch can be (2147483659 bytes)")]
    BatchTooLarge {
        /// Always 0: nothing was read.
        position: usize,
        /// The batch's size, its offset and length fields included.
        size: usize,
    },
    /// An offset that cannot be appended (not above the previous one, or too far from the base).
    #[error("invalid offset {offset} for a batch with base offset {base_offset} (last appended {last_offset:?})")]
    InvalidAppendOffset {
        /// Always 0: nothing was read.
        position: usize,
        /// The offset asked for.
        offset: i64,
        /// The batch's base offset.
        base_offset: i64,
        /// The previous record's offset, if any.
        last_offset: Option<i64>,
    },
}

/// The `position` field of any [`RecordError`] (every variant has one), by reference: one list
/// of variants serves reading it and moving it.
macro_rules! position_of {
    ($error:expr) => {
        match $error {
            RecordError::Truncated { position, .. }
            | RecordError::RecordSizeTooSmall { position, .. }
            | RecordError::BatchTooSmall { position, .. }
            | RecordError::UnknownMagic { position, .. }
            | RecordError::CrcMismatch { position, .. }
            | RecordError::VarintTooLong { position, .. }
            | RecordError::VarlongTooLong { position, .. }
            | RecordError::UnknownCompression { position, .. }
            | RecordError::UnknownTimestampType { position, .. }
            | RecordError::InvalidRecordCount { position, .. }
            | RecordError::RecordsRemaining { position, .. }
            | RecordError::PrematureEof { position, .. }
            | RecordError::InvalidRecordSize { position, .. }
            | RecordError::RecordSizeMismatch { position, .. }
            | RecordError::InvalidHeaderCount { position, .. }
            | RecordError::InvalidHeaderKeySize { position, .. }
            | RecordError::Decompression { position, .. }
            | RecordError::Compression { position, .. }
            | RecordError::DecompressedTooLarge { position, .. }
            | RecordError::InDecompressed { position, .. }
            | RecordError::InvalidWrapperCompression { position, .. }
            | RecordError::NullWrapperValue { position, .. }
            | RecordError::EmptyWrapper { position, .. }
            | RecordError::CompressedInnerMessage { position, .. }
            | RecordError::InvalidWrapperOffset { position, .. }
            | RecordError::InvalidControlKey { position, .. }
            | RecordError::InvalidEndTxnMarker { position, .. }
            | RecordError::NegativeControlVersion { position, .. }
            | RecordError::NotEndTxnMarker { position, .. }
            | RecordError::NotV2 { position, .. }
            | RecordError::InvalidAppendOffset { position, .. }
            | RecordError::BatchTooLarge { position, .. } => position,
        }
    };
}

impl RecordError {
    /// The byte position the error points at (see the type docs for what it counts from).
    pub fn position(&self) -> usize {
        *position_of!(self)
    }

    /// The same error with its position moved by `delta` bytes: used when a slice was cut out of
    /// a larger one (a file, a batch) so the position counts from the larger one's start.
    #[must_use]
    pub fn offset_by(mut self, delta: usize) -> Self {
        let position = position_of!(&mut self);
        *position = position.saturating_add(delta);
        self
    }

    /// Wraps an error found in decompressed bytes so it also names where the compressed bytes
    /// start in the input.
    pub(crate) fn in_decompressed(self, compressed_at: usize) -> Self {
        Self::InDecompressed {
            position: compressed_at,
            source: Box::new(self),
        }
    }
}
