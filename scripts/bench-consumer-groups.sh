#!/usr/bin/env bash
# Times `kafkit consumer-groups --describe` of a group over 10,000 partitions, end to end (the
# release binary, its text to /dev/null): the group `bench` of target/bench-data/groups-10000,
# which `cargo bench --bench groups` writes (100 members of 100 partitions, three rounds of
# offset commits; every partition's log in the directory, so every row has a log end and lag).
#
#   scripts/bench-consumer-groups.sh [RUNS]      (default 11; prints each run and the median)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
cargo build --release --quiet
cargo bench --quiet --bench groups -- no-such-bench >/dev/null
kafkit=${CARGO_TARGET_DIR:-target}/release/kafkit
data=target/bench-data/groups-10000
"$kafkit" --data-dir "$data" consumer-groups --describe --group bench >"$data.out"
echo "output: $(wc -l <"$data.out") lines, $(wc -c <"$data.out") bytes"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for format in text json; do
    : >"$data.times"
    for _ in $(seq "$runs"); do
        start=$(date +%s%N)
        "$kafkit" --data-dir "$data" --output "$format" consumer-groups --describe --group bench >/dev/null
        end=$(date +%s%N)
        echo "scale=1; ($end - $start) / 1000000" | bc >>"$data.times"
    done
    echo "--output $format runs (ms): $(tr '\n' ' ' <"$data.times")"
    echo "  median: $(median <"$data.times") ms"
done
rm -f "$data.times" "$data.out"
