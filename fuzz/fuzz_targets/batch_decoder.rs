//! Arbitrary bytes as a segment: the shallow scan, every header accessor, and deep decoding
//! must return values or errors, never panic, and errors must point inside the input.
#![no_main]

use kafkit::record::{batches, ControlRecordType, EndTransactionMarker};
use libfuzzer_sys::fuzz_target;

// Small, so a decompression bomb is rejected quickly instead of slowing the fuzzer down.
const MAX_DECOMPRESSED: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let mut it = batches(data);
    for entry in it.by_ref() {
        let batch = match entry {
            Ok(batch) => batch,
            Err(e) => {
                assert!(e.position() <= data.len());
                break;
            }
        };
        let _ = (batch.is_valid(), batch.header(), batch.last_offset(), batch.max_timestamp());
        let _ = (batch.compression(), batch.timestamp_type(), batch.records_count());
        match batch.record_iter_with_limit(MAX_DECOMPRESSED) {
            Ok(records) => {
                for record in records {
                    match record {
                        Ok(r) if batch.is_control() => {
                            let _ = ControlRecordType::of_record(&r);
                            let _ = EndTransactionMarker::from_record(&r);
                        }
                        Ok(_) => {}
                        Err(e) => assert!(e.position() <= data.len()),
                    }
                }
            }
            Err(e) => assert!(e.position() <= data.len()),
        }
    }
    assert!(it.position() <= data.len());
});
