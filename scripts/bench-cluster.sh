#!/usr/bin/env bash
# Times the cluster commands on a large metadata log, end to end (the release binary, output
# to /dev/null): a cluster of 12 brokers over 3 racks (`cluster init`) with 30 topics of 1,000
# partitions each, replication factor 3 (`topics --create`, rack-aware placement): 30,000
# PartitionRecords. Then `metadata` (kcat text, JSON) replays the whole log, and
# `cluster what-if --down 1,2,3,4` replays it and elects over every partition.
#
#   scripts/bench-cluster.sh [RUNS] [DIR]      (default 11 runs; prints each run and the median)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-11}
cargo build --release --quiet
kafkit="$PWD/${CARGO_TARGET_DIR:-target}/release/kafkit"
[ -x "$kafkit" ] || kafkit="${CARGO_TARGET_DIR:-$PWD/target}/release/kafkit"
work=${2:-$(mktemp -d /tmp/kafkit-bench-cluster.XXXXXX)}
mkdir -p "$work"
cd "$work"
if [ ! -d cluster ]; then
    racks=()
    for id in $(seq 1 12); do racks+=(--rack "$id=rack-$(( (id - 1) % 3 ))"); done
    "$kafkit" --data-dir cluster cluster init --brokers 12 "${racks[@]}" >/dev/null
    start=$(date +%s%N)
    for t in $(seq -w 1 30); do
        "$kafkit" --data-dir cluster topics --create --topic "t$t" --partitions 1000 \
            --replication-factor 3 >/dev/null
    done
    end=$(date +%s%N)
    echo "30 topics --create (each replays the log first): $(( (end - start) / 1000000 )) ms"
fi
echo "metadata log: $(du -sh cluster/__cluster_metadata-0 | cut -f1)," \
    "$("$kafkit" --data-dir cluster metadata | grep -c '    partition ') partitions"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_it() {
    : >times
    for _ in $(seq "$runs"); do
        start=$(date +%s%N)
        "$kafkit" "$@" >/dev/null
        end=$(date +%s%N)
        echo "scale=1; ($end - $start) / 1000000" | bc >>times
    done
    echo "$*: runs (ms): $(tr '\n' ' ' <times)"
    echo "  median: $(median <times) ms"
}
time_it --data-dir cluster metadata
time_it --data-dir cluster --output json metadata
time_it --data-dir cluster cluster what-if --down 1,2,3,4
time_it --data-dir cluster --output json cluster what-if --down 1,2,3,4
rm -f times
