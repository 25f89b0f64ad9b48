#!/usr/bin/env bash
# The cost of `--output json` in a record dump, as quoted in BENCHMARKS.md: `kafkit --output
# json dump-log-segments --deep-iteration --print-data-log` of one large segment against the same
# dump as text, timed in alternating pairs (the machine's speed drifts over minutes), both to
# /dev/null with the segment in the page cache.
#
#   scripts/bench-dump-json.sh [WORK_DIR] [PAIRS]   (default: a fresh directory under /tmp, 15)
#
# The segment: the 2,000,000 lines of 100 bytes (+ newline) of the other bench-*.sh scripts,
# produced with --acks 1 into one partition (219,959,458 bytes, 13,514 batches, no keys). Prints
# each pair, then the medians of CPU (user + sys) and wall seconds and the median of the pairs'
# JSON / text ratios. Uses $CARGO_TARGET_DIR (default target/).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
kafkit=$(realpath "${CARGO_TARGET_DIR:-target}/release/kafkit")
work=${1:-$(mktemp -d /tmp/kafkit-bench-dump.XXXXXX)}
pairs=${2:-15}
mkdir -p "$work"
cd "$work"
if [ ! -f lines.txt ]; then
  python3 -c "
with open('lines.txt', 'w') as f:
    for i in range(2000000):
        f.write('%010d ' % i + 'x' * 89 + '\n')
"
fi
log=d/b-0/00000000000000000000.log
if [ ! -f "$log" ]; then
  rm -rf d
  "$kafkit" --data-dir d topics --create --topic b >/dev/null 2>&1
  "$kafkit" --data-dir d produce --topic b --acks 1 --file lines.txt
fi
echo "machine: $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/ \+/ /g'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "segment: $log, $(stat -c %s "$log") bytes"
cat "$log" >/dev/null

# CPU (user + sys) and wall seconds of one dump in the given format.
one() {
  /usr/bin/time -f "%U %S %e" -o time.txt \
    "$kafkit" --output "$1" dump-log-segments --files "$log" --deep-iteration --print-data-log >/dev/null
  awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' time.txt
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

one json >/dev/null
one text >/dev/null
: >pairs.txt
for _ in $(seq "$pairs"); do
  echo "$(one json) $(one text)" >>pairs.txt
done
echo "pairs (json cpu, wall; text cpu, wall):"
sed 's/^/  /' pairs.txt
printf 'json: cpu %s s, wall %s s; text: cpu %s s, wall %s s\n' \
  "$(awk '{print $1}' pairs.txt | median)" "$(awk '{print $2}' pairs.txt | median)" \
  "$(awk '{print $3}' pairs.txt | median)" "$(awk '{print $4}' pairs.txt | median)"
printf 'json / text, median of the pairs: cpu %s, wall %s\n' \
  "$(awk '$3 > 0 { printf "%.3f\n", $1 / $3 }' pairs.txt | median)" \
  "$(awk '$4 > 0 { printf "%.3f\n", $2 / $4 }' pairs.txt | median)"
