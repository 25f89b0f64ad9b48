//! Batch compression as Kafka's Java client frames it: gzip members, xerial-framed snappy,
//! Kafka's LZ4 frame subset, zstd frames. The codecs themselves come from their crates; only
//! Kafka's framing around snappy and LZ4 blocks is written here.

use std::io::{self, Read, Write};

use super::cursor::Cursor;
use super::{int_len, read_len, Compression, RecordError};

/// Default bound on the bytes one batch may decompress to. A batch is at most
/// `max.message.bytes` (1 MiB by default) compressed; 256 MiB leaves room for any real ratio
/// while stopping a decompression bomb long before memory runs out.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 256 << 20;

/// The buffer between a codec stream and the record reader.
const STREAM_BUFFER: usize = 32 << 10;

/// snappy-java's stream magic, `\x82SNAPPY\0`.
const XERIAL_MAGIC: [u8; 8] = [0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0];
const XERIAL_HEADER_LEN: usize = 16;
/// snappy-java's `DEFAULT_BLOCK_SIZE`: input bytes per compressed chunk.
const XERIAL_BLOCK_SIZE: usize = 32 * 1024;

const LZ4_MAGIC: u32 = 0x184D_2204;
/// Kafka writes 64 KiB blocks (BD 0x40).
const LZ4_WRITE_BLOCK_SIZE: usize = 64 * 1024;
const LZ4_FLG_VERSION_1: u8 = 0x40;
const LZ4_FLG_BLOCK_INDEPENDENCE: u8 = 0x20;
const LZ4_FLG_BLOCK_CHECKSUM: u8 = 0x10;
const LZ4_FLG_CONTENT_SIZE: u8 = 0x08;
const LZ4_FLG_CONTENT_CHECKSUM: u8 = 0x04;
const LZ4_UNCOMPRESSED_BIT: u32 = 0x8000_0000;

/// Kafka's default level for gzip (`Deflater.DEFAULT_COMPRESSION`, i.e. zlib's 6).
const GZIP_LEVEL: u32 = 6;
/// zstd-jni's default level in Kafka.
const ZSTD_LEVEL: i32 = 3;

fn corrupt(codec: Compression, position: usize, message: impl ToString) -> RecordError {
    RecordError::Decompression {
        position,
        codec: codec.name(),
        message: message.to_string(),
    }
}

fn encode_failed(codec: Compression, message: impl ToString) -> RecordError {
    RecordError::Compression {
        position: 0,
        codec: codec.name(),
        message: message.to_string(),
    }
}

/// Compresses `data` (a run of records, or for legacy an inner message set) the way Kafka's
/// Java producer frames it for magic 2: gzip level 6, xerial-framed snappy with 32 KiB blocks,
/// LZ4 frame with 64 KiB independent blocks and no checksums (header `04 22 4D 18 60 40 82`),
/// zstd level 3. `Compression::None` returns the bytes unchanged.
pub fn compress(compression: Compression, data: &[u8]) -> Result<Vec<u8>, RecordError> {
    match compression {
        Compression::None => Ok(data.to_vec()),
        Compression::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(data.len() / 2 + 32),
                flate2::Compression::new(GZIP_LEVEL),
            );
            enc.write_all(data)
                .and_then(|()| enc.finish())
                .map_err(|e| encode_failed(compression, e))
        }
        Compression::Snappy => {
            let mut out = Vec::with_capacity(data.len() / 2 + XERIAL_HEADER_LEN);
            out.extend_from_slice(&XERIAL_MAGIC);
            out.extend_from_slice(&1i32.to_be_bytes());
            out.extend_from_slice(&1i32.to_be_bytes());
            let mut enc = snap::raw::Encoder::new();
            for chunk in data.chunks(XERIAL_BLOCK_SIZE) {
                let block = enc
                    .compress_vec(chunk)
                    .map_err(|e| encode_failed(compression, e))?;
                out.extend_from_slice(&int_len(block.len()).to_be_bytes());
                out.extend_from_slice(&block);
            }
            Ok(out)
        }
        Compression::Lz4 => Ok(lz4_compress(data, false)),
        Compression::Zstd => {
            zstd::stream::encode_all(data, ZSTD_LEVEL).map_err(|e| encode_failed(compression, e))
        }
    }
}

/// Decompresses `data` as Kafka's readers do, refusing output above `max_decompressed` bytes.
///
/// `magic` matters for LZ4 only: Kafka wrote a wrong frame header checksum for magic 0 and
/// ignores it when reading magic 0, but verifies it for magic 1 and 2. Snappy input without the
/// xerial header is read as one raw snappy block, as snappy-java does. Positions in errors count
/// from the start of `data`.
pub fn decompress(
    compression: Compression,
    data: &[u8],
    max_decompressed: usize,
    magic: i8,
) -> Result<Vec<u8>, RecordError> {
    if compression == Compression::None {
        if data.len() > max_decompressed {
            return Err(RecordError::DecompressedTooLarge {
                position: 0,
                limit: max_decompressed,
            });
        }
        return Ok(data.to_vec());
    }
    let mut out = Vec::new();
    decompressing(compression, data, max_decompressed, magic)?
        .read_to_end(&mut out)
        .map_err(|e| stream_error(compression, e))?;
    Ok(out)
}

/// A reader of the bytes `data` decompresses to, as Kafka's readers stream them: a block or a
/// buffer of the codec at a time, never the whole output. It fails with
/// [`RecordError::DecompressedTooLarge`] past `max_decompressed` bytes; its errors carry a
/// [`RecordError`] (positions from the start of `data`), which [`stream_error`] takes out.
/// A malformed LZ4 frame header or an empty snappy stream fails here, before any byte.
pub(crate) fn decompressing<'a, D: AsRef<[u8]> + Send + 'a>(
    compression: Compression,
    data: D,
    max_decompressed: usize,
    magic: i8,
) -> Result<Box<dyn Read + Send + 'a>, RecordError> {
    // Records are read a varint byte at a time: the buffer keeps those reads out of the codec.
    let limited = |reader: Box<dyn Read + Send + 'a>| -> Box<dyn Read + Send + 'a> {
        Box::new(io::BufReader::with_capacity(
            STREAM_BUFFER,
            Limited {
                inner: reader,
                produced: 0,
                limit: max_decompressed,
            },
        ))
    };
    Ok(match compression {
        Compression::None => limited(Box::new(io::Cursor::new(data))),
        Compression::Gzip => limited(Box::new(flate2::read::MultiGzDecoder::new(
            io::Cursor::new(data),
        ))),
        Compression::Zstd => limited(Box::new(
            zstd::stream::read::Decoder::new(io::Cursor::new(data))
                .map_err(|e| corrupt(compression, 0, e))?,
        )),
        // The block codecs check each block against the limit before they make room for it.
        Compression::Snappy => {
            Box::new(BlockReader::new(SnappyBlocks::new(data, max_decompressed)?))
        }
        Compression::Lz4 => Box::new(BlockReader::new(Lz4Blocks::new(
            data,
            max_decompressed,
            magic == 0,
        )?)),
    })
}

/// The [`RecordError`] behind an error of a [`decompressing`] reader; a codec's own I/O error
/// (gzip, zstd) becomes [`RecordError::Decompression`] at byte 0.
pub(crate) fn stream_error(compression: Compression, error: io::Error) -> RecordError {
    match error.downcast::<RecordError>() {
        Ok(error) => error,
        Err(error) => corrupt(compression, 0, error),
    }
}

/// Stops a reader after `limit` bytes with [`RecordError::DecompressedTooLarge`].
struct Limited<R> {
    inner: R,
    produced: usize,
    limit: usize,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.produced = self.produced.saturating_add(n);
        if self.produced > self.limit {
            return Err(io::Error::other(RecordError::DecompressedTooLarge {
                position: 0,
                limit: self.limit,
            }));
        }
        Ok(n)
    }
}

/// A codec framed in blocks: each call appends the next block's bytes to `out` (cleared by the
/// caller), or returns false at the end of the stream.
trait Blocks {
    fn next_block(&mut self, out: &mut Vec<u8>) -> Result<bool, RecordError>;
}

/// A [`Read`] over [`Blocks`], holding one decoded block at a time.
struct BlockReader<B> {
    blocks: B,
    block: Vec<u8>,
    at: usize,
    done: bool,
}

impl<B: Blocks> BlockReader<B> {
    fn new(blocks: B) -> Self {
        BlockReader {
            blocks,
            block: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl<B: Blocks> Read for BlockReader<B> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.block.len() {
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            self.block.clear();
            self.at = 0;
            if !self
                .blocks
                .next_block(&mut self.block)
                .map_err(io::Error::other)?
            {
                self.done = true;
            }
        }
        let rest = self.block.get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.at += n;
        Ok(n)
    }
}

/// Appends the raw snappy block `block` (at `at` in the compressed data) to `out`, refusing it
/// when it would make the output larger than `room` more bytes.
fn snappy_block(
    block: &[u8],
    at: usize,
    out: &mut Vec<u8>,
    room: usize,
    limit: usize,
) -> Result<usize, RecordError> {
    let len = snap::raw::decompress_len(block).map_err(|e| corrupt(Compression::Snappy, at, e))?;
    if len > room {
        return Err(RecordError::DecompressedTooLarge {
            position: at,
            limit,
        });
    }
    let start = out.len();
    out.resize(start + len, 0);
    let written = snap::raw::Decoder::new()
        .decompress(block, out.get_mut(start..).unwrap_or_default())
        .map_err(|e| corrupt(Compression::Snappy, at, e))?;
    out.truncate(start + written);
    Ok(written)
}

/// snappy-java's `SnappyInputStream`, a chunk at a time.
struct SnappyBlocks<D> {
    data: D,
    /// Position of the next chunk's length.
    pos: usize,
    /// No xerial header: the whole input is one raw snappy block.
    raw: bool,
    produced: usize,
    limit: usize,
}

impl<D: AsRef<[u8]>> SnappyBlocks<D> {
    fn new(data: D, limit: usize) -> Result<Self, RecordError> {
        let bytes = data.as_ref();
        if bytes.is_empty() {
            return Err(corrupt(
                Compression::Snappy,
                0,
                "Cannot decompress empty stream",
            ));
        }
        let raw = bytes.len() < XERIAL_HEADER_LEN || !bytes.starts_with(&XERIAL_MAGIC);
        Ok(SnappyBlocks {
            pos: if raw { 0 } else { XERIAL_HEADER_LEN },
            data,
            raw,
            produced: 0,
            limit,
        })
    }
}

impl<D: AsRef<[u8]>> Blocks for SnappyBlocks<D> {
    fn next_block(&mut self, out: &mut Vec<u8>) -> Result<bool, RecordError> {
        let data = self.data.as_ref();
        let room = self.limit.saturating_sub(self.produced);
        if self.raw {
            if self.pos > 0 {
                return Ok(false);
            }
            self.pos = data.len();
            self.produced += snappy_block(data, 0, out, room, self.limit)?;
            return Ok(true);
        }
        let magic_head = i32::from_be_bytes([
            XERIAL_MAGIC[0],
            XERIAL_MAGIC[1],
            XERIAL_MAGIC[2],
            XERIAL_MAGIC[3],
        ]);
        let mut c = Cursor::new(data.get(self.pos..).unwrap_or_default(), self.pos);
        // snappy-java stops quietly when fewer than 4 bytes are left for a chunk length.
        while c.remaining() >= 4 {
            let at = c.position();
            let len = c.i32("snappy chunk length")?;
            if len == magic_head {
                // A concatenated stream: skip the rest of its header.
                c.take(XERIAL_HEADER_LEN - 4, "snappy stream header")?;
                continue;
            }
            if len < 0 {
                return Err(corrupt(
                    Compression::Snappy,
                    at,
                    format!("invalid chunk length {len}"),
                ));
            }
            let block_at = c.position();
            let block = c.take(read_len(len), "snappy chunk")?;
            self.pos = c.position();
            self.produced += snappy_block(block, block_at, out, room, self.limit)?;
            return Ok(true);
        }
        self.pos = c.position();
        Ok(false)
    }
}

fn lz4_header_checksum(bytes: &[u8]) -> u8 {
    let [_, second, _, _] = twox_hash::XxHash32::oneshot(0, bytes).to_le_bytes();
    second
}

/// Kafka's `Lz4BlockOutputStream` framing around lz4_flex blocks. `broken_checksum` is Kafka's
/// magic-0 header checksum (computed over the magic too).
pub(crate) fn lz4_compress(data: &[u8], broken_checksum: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    out.extend_from_slice(&LZ4_MAGIC.to_le_bytes());
    out.push(LZ4_FLG_VERSION_1 | LZ4_FLG_BLOCK_INDEPENDENCE);
    out.push(0x40); // BD: 64 KiB blocks
    let hc = if broken_checksum {
        lz4_header_checksum(&out)
    } else {
        lz4_header_checksum(out.get(4..).unwrap_or_default())
    };
    out.push(hc);
    for chunk in data.chunks(LZ4_WRITE_BLOCK_SIZE) {
        let block = lz4_flex::block::compress(chunk);
        // Kafka stores a block raw when compression does not shrink it.
        if block.len() >= chunk.len() {
            out.extend_from_slice(
                &(int_len(chunk.len()).cast_unsigned() | LZ4_UNCOMPRESSED_BIT).to_le_bytes(),
            );
            out.extend_from_slice(chunk);
        } else {
            out.extend_from_slice(&int_len(block.len()).cast_unsigned().to_le_bytes());
            out.extend_from_slice(&block);
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes());
    out
}

fn u32_le(c: &mut Cursor<'_>, what: &'static str) -> Result<u32, RecordError> {
    let b = c.take(4, what)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    Ok(u32::from_le_bytes(a))
}

/// Kafka's `Lz4BlockInputStream`, a block at a time: frame format 1.5.1 with independent blocks
/// only; block and content checksums are skipped, not verified, as Kafka does.
struct Lz4Blocks<D> {
    data: D,
    /// Position of the next block's size word.
    pos: usize,
    flg: u8,
    max_block: usize,
    block_buf: Vec<u8>,
    produced: usize,
    limit: usize,
    done: bool,
}

impl<D: AsRef<[u8]>> Lz4Blocks<D> {
    /// Reads and checks the frame header.
    fn new(data: D, limit: usize, ignore_header_checksum: bool) -> Result<Self, RecordError> {
        let lz4 = Compression::Lz4;
        let bytes = data.as_ref();
        let mut c = Cursor::new(bytes, 0);
        if u32_le(&mut c, "lz4 magic")? != LZ4_MAGIC {
            return Err(corrupt(lz4, 0, "Stream unsupported (invalid magic bytes)"));
        }
        let flg_at = c.position();
        let flg = c.take(1, "lz4 FLG")?.first().copied().unwrap_or_default();
        let bd = c.take(1, "lz4 BD")?.first().copied().unwrap_or_default();
        if flg >> 6 != 1 {
            return Err(corrupt(lz4, flg_at, "Stream unsupported (version != 1)"));
        }
        if flg & 0x03 != 0 || bd & 0x8f != 0 {
            return Err(corrupt(
                lz4,
                flg_at,
                "Stream unsupported (reserved bits set)",
            ));
        }
        if flg & LZ4_FLG_BLOCK_INDEPENDENCE == 0 {
            return Err(corrupt(
                lz4,
                flg_at,
                "Stream unsupported (dependent blocks)",
            ));
        }
        let block_code = (bd >> 4) & 0x07;
        if block_code < 4 {
            return Err(corrupt(
                lz4,
                flg_at + 1,
                format!("Stream unsupported (block size code {block_code})"),
            ));
        }
        let max_block = 1usize << (8 + 2 * usize::from(block_code));
        if flg & LZ4_FLG_CONTENT_SIZE != 0 {
            c.take(8, "lz4 content size")?;
        }
        let hc_at = c.position();
        let descriptor = bytes.get(flg_at..hc_at).unwrap_or_default();
        let hc = c
            .take(1, "lz4 header checksum")?
            .first()
            .copied()
            .unwrap_or_default();
        if !ignore_header_checksum && hc != lz4_header_checksum(descriptor) {
            return Err(corrupt(lz4, hc_at, "Stream frame descriptor corrupted"));
        }
        Ok(Lz4Blocks {
            pos: c.position(),
            data,
            flg,
            max_block,
            block_buf: Vec::new(),
            produced: 0,
            limit,
            done: false,
        })
    }
}

impl<D: AsRef<[u8]>> Blocks for Lz4Blocks<D> {
    fn next_block(&mut self, out: &mut Vec<u8>) -> Result<bool, RecordError> {
        if self.done {
            return Ok(false);
        }
        let lz4 = Compression::Lz4;
        let data = self.data.as_ref();
        let mut c = Cursor::new(data.get(self.pos..).unwrap_or_default(), self.pos);
        let at = c.position();
        let word = u32_le(&mut c, "lz4 block size")
            .map_err(|_| corrupt(lz4, at, "Stream ended prematurely"))?;
        let size = (word & !LZ4_UNCOMPRESSED_BIT) as usize;
        if size == 0 {
            if self.flg & LZ4_FLG_CONTENT_CHECKSUM != 0 {
                c.take(4, "lz4 content checksum")?;
            }
            self.pos = c.position();
            self.done = true;
            return Ok(false);
        }
        if size > self.max_block {
            return Err(corrupt(
                lz4,
                at,
                format!("Block size {size} exceeded max: {}", self.max_block),
            ));
        }
        let block_at = c.position();
        let block = c.take(size, "lz4 block")?;
        let decoded = if word & LZ4_UNCOMPRESSED_BIT != 0 {
            block
        } else {
            self.block_buf.resize(self.max_block, 0);
            let n = lz4_flex::block::decompress_into(block, &mut self.block_buf)
                .map_err(|e| corrupt(lz4, block_at, e))?;
            self.block_buf.get(..n).unwrap_or_default()
        };
        if self.produced.saturating_add(decoded.len()) > self.limit {
            return Err(RecordError::DecompressedTooLarge {
                position: block_at,
                limit: self.limit,
            });
        }
        self.produced += decoded.len();
        out.extend_from_slice(decoded);
        if self.flg & LZ4_FLG_BLOCK_CHECKSUM != 0 {
            c.take(4, "lz4 block checksum")?;
        }
        self.pos = c.position();
        Ok(true)
    }
}
