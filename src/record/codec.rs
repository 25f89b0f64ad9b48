//! Batch compression as Kafka's Java client frames it: gzip members, xerial-framed snappy,
//! Kafka's LZ4 frame subset, zstd frames. The codecs themselves come from their crates; only
//! Kafka's framing around snappy and LZ4 blocks is written here.

use std::io::{Read, Write};

use super::cursor::Cursor;
use super::{Compression, RecordError};

/// Default bound on the bytes one batch may decompress to. A batch is at most
/// `max.message.bytes` (1 MiB by default) compressed; 256 MiB leaves room for any real ratio
/// while stopping a decompression bomb long before memory runs out.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 256 << 20;

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
                out.extend_from_slice(&(block.len() as i32).to_be_bytes());
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
    match compression {
        Compression::None => {
            if data.len() > max_decompressed {
                return Err(RecordError::DecompressedTooLarge {
                    position: 0,
                    limit: max_decompressed,
                });
            }
            Ok(data.to_vec())
        }
        Compression::Gzip => read_limited(
            flate2::read::MultiGzDecoder::new(data),
            compression,
            max_decompressed,
        ),
        Compression::Snappy => snappy_decompress(data, max_decompressed),
        Compression::Lz4 => lz4_decompress(data, max_decompressed, magic == 0),
        Compression::Zstd => {
            let dec =
                zstd::stream::read::Decoder::new(data).map_err(|e| corrupt(compression, 0, e))?;
            read_limited(dec, compression, max_decompressed)
        }
    }
}

fn read_limited(
    reader: impl Read,
    compression: Compression,
    limit: usize,
) -> Result<Vec<u8>, RecordError> {
    let mut out = Vec::new();
    reader
        .take((limit as u64).saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| corrupt(compression, 0, e))?;
    if out.len() > limit {
        return Err(RecordError::DecompressedTooLarge { position: 0, limit });
    }
    Ok(out)
}

fn snappy_block(
    block: &[u8],
    at: usize,
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), RecordError> {
    let len = snap::raw::decompress_len(block).map_err(|e| corrupt(Compression::Snappy, at, e))?;
    if out.len().saturating_add(len) > limit {
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
    Ok(())
}

/// snappy-java's `SnappyInputStream`.
fn snappy_decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, RecordError> {
    if data.is_empty() {
        return Err(corrupt(
            Compression::Snappy,
            0,
            "Cannot decompress empty stream",
        ));
    }
    let mut out = Vec::new();
    if data.len() < XERIAL_HEADER_LEN || !data.starts_with(&XERIAL_MAGIC) {
        snappy_block(data, 0, &mut out, limit)?;
        return Ok(out);
    }
    let magic_head = i32::from_be_bytes([
        XERIAL_MAGIC[0],
        XERIAL_MAGIC[1],
        XERIAL_MAGIC[2],
        XERIAL_MAGIC[3],
    ]);
    let mut c = Cursor::new(data, 0);
    c.take(XERIAL_HEADER_LEN, "snappy stream header")?;
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
        let block = c.take(len as usize, "snappy chunk")?;
        snappy_block(block, block_at, &mut out, limit)?;
    }
    Ok(out)
}

fn lz4_header_checksum(bytes: &[u8]) -> u8 {
    (twox_hash::XxHash32::oneshot(0, bytes) >> 8) as u8
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
            out.extend_from_slice(&(chunk.len() as u32 | LZ4_UNCOMPRESSED_BIT).to_le_bytes());
            out.extend_from_slice(chunk);
        } else {
            out.extend_from_slice(&(block.len() as u32).to_le_bytes());
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

/// Kafka's `Lz4BlockInputStream`: frame format 1.5.1 with independent blocks only; block and
/// content checksums are skipped, not verified, as Kafka does.
fn lz4_decompress(
    data: &[u8],
    limit: usize,
    ignore_header_checksum: bool,
) -> Result<Vec<u8>, RecordError> {
    let lz4 = Compression::Lz4;
    let mut c = Cursor::new(data, 0);
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
    let descriptor = data.get(flg_at..hc_at).unwrap_or_default();
    let hc = c
        .take(1, "lz4 header checksum")?
        .first()
        .copied()
        .unwrap_or_default();
    if !ignore_header_checksum && hc != lz4_header_checksum(descriptor) {
        return Err(corrupt(lz4, hc_at, "Stream frame descriptor corrupted"));
    }
    let mut out = Vec::new();
    let mut block_buf = Vec::new();
    loop {
        let at = c.position();
        let word = u32_le(&mut c, "lz4 block size")
            .map_err(|_| corrupt(lz4, at, "Stream ended prematurely"))?;
        let size = (word & !LZ4_UNCOMPRESSED_BIT) as usize;
        if size == 0 {
            if flg & LZ4_FLG_CONTENT_CHECKSUM != 0 {
                c.take(4, "lz4 content checksum")?;
            }
            return Ok(out);
        }
        if size > max_block {
            return Err(corrupt(
                lz4,
                at,
                format!("Block size {size} exceeded max: {max_block}"),
            ));
        }
        let block_at = c.position();
        let block = c.take(size, "lz4 block")?;
        if word & LZ4_UNCOMPRESSED_BIT != 0 {
            if out.len().saturating_add(size) > limit {
                return Err(RecordError::DecompressedTooLarge {
                    position: block_at,
                    limit,
                });
            }
            out.extend_from_slice(block);
        } else {
            block_buf.resize(max_block, 0);
            let n = lz4_flex::block::decompress_into(block, &mut block_buf)
                .map_err(|e| corrupt(lz4, block_at, e))?;
            if out.len().saturating_add(n) > limit {
                return Err(RecordError::DecompressedTooLarge {
                    position: block_at,
                    limit,
                });
            }
            out.extend_from_slice(block_buf.get(..n).unwrap_or_default());
        }
        if flg & LZ4_FLG_BLOCK_CHECKSUM != 0 {
            c.take(4, "lz4 block checksum")?;
        }
    }
}
