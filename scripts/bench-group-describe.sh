#!/usr/bin/env bash
# Times `kafkit consumer-groups --describe` of a group over 10,000 partitions whose data and
# offsets kafkit itself wrote, end to end (the release binary, its output to /dev/null):
#
#   scripts/bench-group-describe.sh [DATA_DIR] [RUNS]
#       (default target/bench-data/describe-10000, reused once complete; 11 runs)
#
# The data directory, made once through the command line (about 4 minutes here, most of it the
# 10,000 partitions' files being created and synced):
#   kafkit topics --create --topic big --partitions 10000
#   kafkit produce --topic big --partitioner round-robin --acks 1     100,000 lines: 10 a partition
#   kafkit consume --topic big --group bench --from-beginning --max-messages 95000
#       (the member hosts the coordinator, and its commit at close writes 10,000 offsets to
#       __consumer_offsets: lags of 0 and more)
# so every partition has what kafkit's writer leaves: a .log, its .index and .timeindex. Then
# RUNS runs of `--describe --group bench` for --output text and json, with the log-end cache
# removed before each run (cold) and kept (warm), each run's wall time (date +%s%N) and CPU time
# (/usr/bin/time, user + system), and their medians.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-target/bench-data/describe-10000}
runs=${2:-11}
cargo build --release --quiet
kafkit=$(realpath "${CARGO_TARGET_DIR:-target}")/release/kafkit
if [ ! -f "$data/.bench-complete" ]; then
    rm -rf "$data"
    mkdir -p "$(dirname "$data")"
    lines=$(mktemp)
    seq 0 99999 | sed 's/^/value /' >"$lines"
    "$kafkit" --data-dir "$data" topics --create --topic big --partitions 10000 >/dev/null
    "$kafkit" --data-dir "$data" produce --topic big --file "$lines" --partitioner round-robin --acks 1
    "$kafkit" --data-dir "$data" consume --topic big --group bench --from-beginning \
        --max-messages 95000 --consumer-property group.initial.rebalance.delay.ms=0 \
        >/dev/null 2>"$data.consume.log"
    rm -f "$lines" "$data.consume.log"
    touch "$data/.bench-complete"
fi
out=$(mktemp)
"$kafkit" --data-dir "$data" consumer-groups --describe --group bench >"$out" 2>/dev/null
echo "output: $(wc -l <"$out") lines, $(wc -c <"$out") bytes"
echo "machine: $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/ \+/ /g'); load $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# "cold": the log-end cache (.kafkit-log-ends) removed before each run, so every partition's log
# is read (and the cache written again); "warm": the cache left as the previous run wrote it,
# every partition unchanged (two statx each).
for cache in cold warm; do
for format in text json; do
    : >"$out"
    rm -f "$data/.kafkit-log-ends"
    "$kafkit" --data-dir "$data" consumer-groups --describe --group bench >/dev/null 2>&1
    for _ in $(seq "$runs"); do
        if [ "$cache" = cold ]; then rm -f "$data/.kafkit-log-ends"; fi
        start=$(date +%s%N)
        /usr/bin/time -o "$out.cpu" -f "%U %S" \
            "$kafkit" --data-dir "$data" --output "$format" consumer-groups --describe --group bench >/dev/null 2>&1
        end=$(date +%s%N)
        echo "$(((end - start) / 1000000)) $(awk '{printf "%d", ($1 + $2) * 1000}' "$out.cpu")" >>"$out"
    done
    echo "$cache, --output $format: wall ms $(cut -d' ' -f1 "$out" | tr '\n' ' ')(median $(cut -d' ' -f1 "$out" | median)); CPU ms median $(cut -d' ' -f2 "$out" | median)"
done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$out" "$out.cpu"
