#!/usr/bin/env python3
"""Writes segments with kafka-python's record builders (an implementation independent of kafkit)
and what kafka-python reads back from them, for kafkit's interop tests.

Output, relative to the repository root:
  tests/data/kafka-python/<topic>-0/00000000000000000000.log   one segment per topic
  tests/data/kafka-python/expected.json                         the records kafka-python reads

Topics: uncompressed v2 with headers, null/empty/binary keys and values and a tombstone; gzip,
snappy, lz4 and zstd v2 batches; a transactional partition with an aborted and a committed
transaction (ABORT/COMMIT control batches); a LogAppendTime batch; legacy v1 gzip and snappy
and v0 uncompressed message sets.

It also reads every segment and KRaft snapshot of the shared real-broker fixtures
(`../shared/kafka-fixtures`, or the directory given as the first argument) with kafka-python and
writes, per file, the record count, the first record and a CRC-32 of all records as canonical
JSON lines (sorted keys, compact, UTF-8) to tests/data/kafka-python/fixtures-expected.json.

Run: python3 scripts/make-kafka-python-segments.py [FIXTURES_DIR]   (kafka-python 2.0.2 or
2.1.x, with python-snappy or cramjam, zstandard and lz4 installed). The output is deterministic.
"""
import base64
import json
import os
import struct
import sys
import time
import zlib

import kafka
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords
from kafka.record.util import calc_crc32c

# gzip stamps the current time into its header: fix it so the output is reproducible.
time.time = lambda: 1730000000.0

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "kafka-python")
T0 = 1_730_000_000_000


def v2_batch(base_offset, records, codec=0, transactional=False, producer=(-1, -1, -1),
             control=False, log_append_time=None):
    """One magic-2 batch. records: (timestamp, key, value, headers)."""
    pid, epoch, seq = producer
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=transactional,
                                  producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                                  batch_size=1 << 20)
    for i, (ts, key, value, headers) in enumerate(records):
        assert b.append(i, timestamp=ts, key=key, value=value, headers=headers) is not None
    buf = bytearray(b.build())
    struct.pack_into(">q", buf, 0, base_offset)       # base offset: set by the broker
    struct.pack_into(">i", buf, 12, 0)                 # partition leader epoch: set by the broker
    if control or log_append_time is not None:
        attrs = struct.unpack_from(">h", buf, 21)[0]
        if control:
            attrs |= 0x20
        if log_append_time is not None:
            attrs |= 0x08
            struct.pack_into(">q", buf, 35, log_append_time)
        struct.pack_into(">h", buf, 21, attrs)
        struct.pack_into(">I", buf, 17, calc_crc32c(bytes(buf[21:])))
    return bytes(buf)


def legacy_set(magic, codec, first_offset, records):
    """A legacy message set. records: (timestamp, key, value)."""
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for i, (ts, key, value) in enumerate(records):
        assert b.append(i, timestamp=ts, key=key, value=value) is not None
    buf = bytearray(b.build())
    # Offsets are assigned by the broker: uncompressed entries get absolute offsets; a
    # compressed wrapper takes the offset of its last inner message (inner offsets stay
    # relative for magic 1, absolute for magic 0).
    pos = 0
    n = 0
    while pos < len(buf):
        size = struct.unpack_from(">i", buf, pos + 8)[0]
        if codec == 0:
            struct.pack_into(">q", buf, pos, first_offset + n)
        else:
            struct.pack_into(">q", buf, pos, first_offset + len(records) - 1)
        pos += 12 + size
        n += 1
    return bytes(buf)


def marker(base_offset, producer, commit, ts, coordinator_epoch=0):
    key = struct.pack(">hh", 0, 1 if commit else 0)
    value = struct.pack(">hi", 0, coordinator_epoch)
    return v2_batch(base_offset, [(ts, key, value, [])], transactional=True,
                    producer=(producer[0], producer[1], -1), control=True)


def records(n, ts, prefix, headers=True):
    out = []
    for i in range(n):
        hs = [("trace", ("id-%d" % i).encode()), ("bin", bytes([0xff, i % 256]))] if headers else []
        out.append((ts + i, ("%s-key-%d" % (prefix, i)).encode(), ("%s value %d " % (prefix, i) * 3).encode(), hs))
    return out


def topics():
    t = {}
    # Uncompressed, every shape of key/value/header.
    odd = [
        (T0, None, b"null key", []),
        (T0 + 1, b"", b"", [("empty", b""), ("null", None)]),
        (T0 + 2, b"tombstone", None, []),
        (T0 + 3, bytes([0xc3, 0x28, 0x00, 0xff]), bytes(range(256)), [("k\u00e9y", "v\u00e4l\u00fc\u00e9".encode())]),
        (T0 - 5, b"earlier", "\u65e5\u672c\u8a9e".encode(), []),
    ]
    t["kp-none"] = [v2_batch(0, odd), v2_batch(5, records(10, T0 + 10, "none"))]
    for codec, name in [(1, "gzip"), (2, "snappy"), (3, "lz4"), (4, "zstd")]:
        segs, off = [], 0
        for b in range(3):
            recs = records(7 + b, T0 + 100 * b, name)
            segs.append(v2_batch(off, recs, codec=codec, producer=(42, 0, off)))
            off += len(recs)
        t["kp-" + name] = segs
    # Transactions: producer 7 aborts one, commits the next; producer 8 interleaves.
    p7, p8 = (7, 1), (8, 0)
    t["kp-txn"] = [
        v2_batch(0, records(3, T0, "aborted"), transactional=True, producer=(7, 1, 0)),
        v2_batch(3, records(2, T0 + 5, "other"), transactional=True, producer=(8, 0, 0)),
        marker(5, p7, commit=False, ts=T0 + 10, coordinator_epoch=3),
        v2_batch(6, records(4, T0 + 20, "committed"), codec=1, transactional=True, producer=(7, 1, 3)),
        marker(10, p8, commit=True, ts=T0 + 25),
        marker(11, p7, commit=True, ts=T0 + 30, coordinator_epoch=3),
    ]
    t["kp-logappendtime"] = [v2_batch(0, records(4, T0, "lat"), log_append_time=T0 + 999)]
    t["kp-legacy"] = [
        legacy_set(0, 0, 0, [(-1, b"k0", b"v0 plain"), (-1, None, b"v0 no key")]),
        legacy_set(1, 1, 2, [(T0 + i, ("g%d" % i).encode(), ("v1 gzip %d" % i).encode()) for i in range(4)]),
        legacy_set(1, 2, 6, [(T0 + 10 + i, None, ("v1 snappy %d" % i).encode()) for i in range(3)]),
        legacy_set(1, 0, 9, [(T0 + 20, b"plain", None)]),
    ]
    return t


def bytes_value(b):
    if b is None:
        return None
    b = bytes(b)
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(b).decode()}


def read_back(data):
    """What kafka-python reads from a segment: batch-level fields and every record."""
    out = {"batches": [], "records": []}
    mr = MemoryRecords(data)
    while True:
        batch = mr.next_batch()
        if batch is None:
            break
        magic = getattr(batch, "magic", None)
        if magic is None:
            magic = batch._magic
        b = {"magic": magic, "is_valid": batch.validate_crc()}
        if magic == 2:
            # kafka-python 2.0.2 has no accessors for the producer fields: read its header tuple.
            h = batch._header_data
            b.update({
                "base_offset": batch.base_offset,
                "compression": ["none", "gzip", "snappy", "lz4", "zstd"][batch.compression_type],
                "is_transactional": batch.is_transactional,
                "is_control": batch.is_control_batch,
                "producer_id": h[9],
                "producer_epoch": h[10],
                "base_sequence": h[11],
                "timestamp_type": ["CreateTime", "LogAppendTime"][batch.timestamp_type],
                "max_timestamp": batch.max_timestamp,
            })
        out["batches"].append(b)
        for r in batch:
            out["records"].append({
                "offset": r.offset,
                "timestamp": r.timestamp if r.timestamp is not None else -1,
                "key": bytes_value(r.key),
                "value": bytes_value(r.value),
                "headers": [{"key": k, "value": bytes_value(v)} for k, v in (getattr(r, "headers", None) or [])],
            })
    return out


def canonical(record):
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fixtures_expected(fixtures):
    out = {}
    for dirpath, _, names in sorted(os.walk(fixtures)):
        if "expected-dump" in dirpath:
            continue
        for name in sorted(names):
            if not (name.endswith(".log") or name.endswith(".checkpoint")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                records = read_back(f.read())["records"]
            lines = "\n".join(canonical(r) for r in records).encode()
            out[os.path.relpath(path, fixtures)] = {
                "records": len(records),
                "first": records[0] if records else None,
                "crc32": zlib.crc32(lines),
            }
    return out


def main():
    expected = {"kafka-python": kafka.__version__, "partitions": {}}
    for topic, batches in sorted(topics().items()):
        data = b"".join(batches)
        d = os.path.join(ROOT, topic + "-0")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "00000000000000000000.log"), "wb") as f:
            f.write(data)
        expected["partitions"][topic + "-0"] = read_back(data)
    with open(os.path.join(ROOT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    fixtures = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "..", "..", "..", "shared", "kafka-fixtures")
    if os.path.isdir(fixtures):
        with open(os.path.join(ROOT, "fixtures-expected.json"), "w") as f:
            json.dump({"kafka-python": kafka.__version__, "files": fixtures_expected(fixtures)},
                      f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    else:
        print("fixtures not found at %s: fixtures-expected.json not written" % fixtures, file=sys.stderr)


if __name__ == "__main__":
    main()
