#!/usr/bin/env bash
# Times Kafka's large sticky-assignor case end to end, JSON in and out:
# AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription, 2,000 members,
# 500 topics x 2,000 partitions, cooperative-sticky; round 1 assigns from scratch, round 2 has the
# same members report their owned partitions (member 0 nothing). Each round is one
# `kafkit simulate-assignment --scenario FILE` run, its output written to a file.
#
#   scripts/bench-large-assignment.sh [RUNS]      (default 7; prints each run and the medians)
#
# Uses $CARGO_TARGET_DIR (default target/) and a temporary directory for the 7 MB and 20 MB
# input files (written by scripts/gen-large-assignment.py).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release --quiet
kafkit=${CARGO_TARGET_DIR:-target}/release/kafkit
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 scripts/gen-large-assignment.py round1 "$dir/round1.json"
"$kafkit" simulate-assignment --scenario "$dir/round1.json" --output json >"$dir/round1.jsonl"
python3 scripts/gen-large-assignment.py round2 "$dir/round1.jsonl" "$dir/round2.json"
ls -l "$dir"/round1.json "$dir"/round2.json | awk '{print "input", $NF, $5, "bytes"}'

# Seconds of one run (wall clock), its stdout to $dir/out.
one() {
    local start end
    start=$(date +%s.%N)
    "$kafkit" simulate-assignment --scenario "$1" --output "$2" >"$dir/out"
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for format in json text; do
    : >"$dir/r1" ; : >"$dir/r2" ; : >"$dir/both"
    for _ in $(seq "$runs"); do
        a=$(one "$dir/round1.json" "$format")
        b=$(one "$dir/round2.json" "$format")
        echo "$a" >>"$dir/r1"; echo "$b" >>"$dir/r2"; echo "$a + $b" | bc >>"$dir/both"
    done
    echo "--output $format: output $(wc -c <"$dir/out") bytes (round 2)"
    echo "  round 1 runs: $(tr '\n' ' ' <"$dir/r1")"
    echo "  round 2 runs: $(tr '\n' ' ' <"$dir/r2")"
    printf '  median: round 1 %.3f s, round 2 %.3f s, both rounds %.3f s\n' \
        "$(median <"$dir/r1")" "$(median <"$dir/r2")" "$(median <"$dir/both")"
done
