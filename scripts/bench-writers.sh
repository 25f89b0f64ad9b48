#!/usr/bin/env bash
# Figures of issue #14 quoted in BENCHMARKS.md: many writers and the latency of a pipe.
#
#   scripts/bench-writers.sh [WORK_DIR]      (default: a fresh directory under /tmp)
#
# Builds the release binary, writes 2,000,000 lines of 100 bytes (+ newline), then, ROUNDS
# (default 5) times in alternation: one default (--acks all) producer of the whole file into a
# one-partition topic, and four producers of a quarter each into one partition at once. Prints
# the medians and the median of the rounds' throughput ratios (four together / one alone).
# Then the latency of a pipe: scripts/pipe-latency.py (a line written to `kafkit produce`'s
# stdin until `kafkit consume`, following the partition, prints it), LINGER ms of linger.
set -euo pipefail
cd "$(dirname "$0")/.."
S="$PWD/scripts"
# shellcheck source=scripts/bench-common.sh
. scripts/bench-common.sh "$@"
if [ ! -f quarter.00 ]; then
  split -n l/4 -d lines.txt quarter.
fi
now() { date +%s%N; }
secs() { awk -v ns=$(($2 - $1)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'; }

echo "machine: $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/ \+/ /g')"
echo "file: $(stat -c %s lines.txt) bytes, $N lines"

: > rounds.txt
for i in $(seq "${ROUNDS:-5}"); do
  rm -rf d && "$K" --data-dir d topics --create --topic one >/dev/null 2>&1
  start=$(now)
  "$K" --data-dir d produce --topic one --file lines.txt
  one=$(secs "$start" "$(now)")
  rm -rf d && "$K" --data-dir d topics --create --topic four >/dev/null 2>&1
  start=$(now)
  for q in quarter.0*; do "$K" --data-dir d produce --topic four --file "$q" & done
  wait
  four=$(secs "$start" "$(now)")
  total=$("$K" --data-dir d get-offsets --topic four)
  [ "$total" = "four:0:$N" ] || { echo "four producers wrote $total, not $N" >&2; exit 1; }
  echo "$one $four" >> rounds.txt
done
one_s=$(awk '{print $1}' rounds.txt | median)
four_s=$(awk '{print $2}' rounds.txt | median)
ratio=$(awk '{printf "%.2f\n", $1 / $2}' rounds.txt | median)
echo "one producer, default acks all: ${one_s} s ($(python3 -c "print(round($N/$one_s))") records/s)"
echo "four producers into one partition at once: ${four_s} s in all ($(python3 -c "print(round($N/$four_s))") records/s; median of the rounds' throughput ratios, four / one: ${ratio})"
echo "rounds (one, four):" $(tr '\n' ';' < rounds.txt)

rm -rf p && "$K" --data-dir p topics --create --topic lat >/dev/null 2>&1
python3 "$S/pipe-latency.py" "$K" p lat "${LINGER:-1000}" "${SAMPLES:-20}"
