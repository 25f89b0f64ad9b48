#!/usr/bin/env python3
"""Read Kafka .log segment files with kafka-python, an implementation independent of kafkit.

Usage: read-with-kafka-python.py SEGMENT.log [SEGMENT.log ...]

Prints one JSON object: {"kafka_python": version, "files": [{"path", "valid_bytes", "size",
"batches": [{"base_offset", "last_offset_delta", "magic", "crc_valid", "codec",
"timestamp_type", "max_timestamp", "is_transactional", "is_control",
"records": [{"offset", "timestamp", "key", "value", "headers": [[k, v], ...]}]}]}]}.
Bytes print as a UTF-8 string, null, or {"base64": ...} (kafkit's JSON byte rules).
Exit 2 when kafka-python is missing (the caller prints SKIPPED).
"""

import base64
import json
import sys

try:
    import kafka
    from kafka.record.memory_records import MemoryRecords
except ImportError as e:  # pragma: no cover
    print("kafka-python is not installed: %s" % e, file=sys.stderr)
    sys.exit(2)

CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def as_json(data):
    if data is None:
        return None
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    records = MemoryRecords(data)
    batches = []
    while records.has_next():
        batch = records.next_batch()
        out = {
            "base_offset": batch.base_offset,
            "magic": batch.magic,
            "crc_valid": batch.validate_crc(),
            "codec": CODECS.get(batch.compression_type, str(batch.compression_type)),
            "timestamp_type": batch.timestamp_type,
            "records": [],
        }
        if batch.magic == 2:
            out.update(
                last_offset_delta=batch.last_offset_delta,
                max_timestamp=batch.max_timestamp,
                is_transactional=batch.is_transactional,
                is_control=batch.is_control_batch,
            )
        for r in batch:
            out["records"].append(
                {
                    "offset": r.offset,
                    "timestamp": r.timestamp,
                    "key": as_json(r.key),
                    "value": as_json(r.value),
                    "headers": [[k, as_json(v)] for k, v in (r.headers or [])],
                }
            )
        batches.append(out)
    return {
        "path": path,
        "size": len(data),
        "valid_bytes": records.valid_bytes(),
        "batches": batches,
    }


def main(paths):
    result = {"kafka_python": kafka.__version__, "files": [read(p) for p in paths]}
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    main(sys.argv[1:])
