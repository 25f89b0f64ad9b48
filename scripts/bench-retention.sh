#!/usr/bin/env bash
# Times a `kafkit log-cleaner` pass over 1,000 partitions with nothing to delete (one topic of
# 1,000 partitions, one record in each, default retention): every partition's segments are
# looked at read-only and none is opened for writing. Prints the wall time of each run
# (`/usr/bin/time -f "%e s %M KB"`), then the median.
#
#   scripts/bench-retention.sh [RUNS]      (default 7; KAFKIT=path picks the binary, else the
#                                           release build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
if [ -z "${KAFKIT:-}" ]; then
    cargo build --release --quiet
    KAFKIT=${CARGO_TARGET_DIR:-target}/release/kafkit
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
"$KAFKIT" --data-dir "$data" topics --create --topic r --partitions 1000 >/dev/null 2>&1
seq 1 1000 | "$KAFKIT" --data-dir "$data" produce --topic r --partitioner round-robin >/dev/null
times=()
for run in $(seq "$runs"); do
    t=$( { /usr/bin/time -f "%e %M" "$KAFKIT" --data-dir "$data" log-cleaner >/dev/null; } 2>&1 )
    echo "run $run: ${t% *} s, ${t#* } KB max RSS"
    times+=("${t% *}")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print "median: " a[int((NR+1)/2)] " s"}'
