#!/usr/bin/env bash
# End-to-end figures of `kafkit produce` / `kafkit consume` quoted in BENCHMARKS.md.
#
#   scripts/bench-client.sh [WORK_DIR]      (default: a fresh directory under /tmp)
#
# Builds the release binary, writes 2,000,000 lines of 100 bytes (+ newline), then times (medians
# printed): ROUNDS (default 7) rounds of cp of the file, cp + sync, produce of the file with
# --acks 1 and with the default --acks all (group commit), in alternation; 5 runs of consume of the partition to /dev/null; a seek to the
# middle of a 10-segment partition, for two partition sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-common.sh
. scripts/bench-common.sh "$@"
t() { # wall seconds of a command, millisecond resolution
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

echo "machine: $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/ \+/ /g')"
echo "file: $(stat -c %s lines.txt) bytes, $N lines"

produce() { # $1 = extra args
  rm -rf d && "$K" --data-dir d topics --create --topic b >/dev/null 2>&1
  t "$K" --data-dir d produce --topic b --file lines.txt $1
}
# The machine's speed drifts over minutes: cp and produce --acks 1 run in alternation, ROUNDS
# pairs, and the ratio is the median of the pairs' ratios.
: > pairs.txt
for i in $(seq "${ROUNDS:-7}"); do
  rm -f copy.txt; c=$(t cp lines.txt copy.txt); rm -f copy.txt
  cs=$(t sh -c 'cp lines.txt copy.txt && sync copy.txt'); rm -f copy.txt
  p=$(produce "--acks 1")
  a=$(produce "")
  echo "$c $cs $p $a" >> pairs.txt
done
cp_s=$(awk '{print $1}' pairs.txt | median)
cps_s=$(awk '{print $2}' pairs.txt | median)
p_s=$(awk '{print $3}' pairs.txt | median)
ratio=$(awk '{printf "%.2f\n", $3 / $1}' pairs.txt | median)
ratio_sync=$(awk '{printf "%.2f\n", $3 / $2}' pairs.txt | median)
echo "cp: ${cp_s} s"
echo "cp + sync of the copy: ${cps_s} s"
echo "produce --acks 1: ${p_s} s ($(python3 -c "print(round($N/$p_s))") records/s; median of the pairs' ratios: ${ratio}x cp, ${ratio_sync}x cp + sync)"
a_s=$(awk '{print $4}' pairs.txt | median)
ratio_all=$(awk '{printf "%.2f\n", $4 / $2}' pairs.txt | median)
echo "produce (default --acks all, group commit): ${a_s} s ($(python3 -c "print(round($N/$a_s))") records/s; median of the pairs' ratios: ${ratio_all}x cp + sync)"
echo "pairs (cp, cp + sync, produce --acks 1, produce --acks all):" $(tr '\n' ';' < pairs.txt)

c_s=$(for i in 1 2 3 4 5; do t "$K" --data-dir d consume --topic b --partition 0 --offset earliest --max-messages $N; done | median)
echo "consume to /dev/null: ${c_s} s ($(python3 -c "print(round($N/$c_s))") records/s)"


seek() { # $1 = lines, $2 = segment.bytes
  rm -rf s && "$K" --data-dir s topics --create --topic s --config segment.bytes=$2 >/dev/null 2>&1
  head -n "$1" lines.txt | "$K" --data-dir s produce --topic s --acks 1
  echo "  $(ls s/s-0/*.log | wc -l) segments, $(du -sh s/s-0 | cut -f1)"
  local mid=$(( $1 / 2 ))
  s_s=$(for i in 1 2 3 4 5; do t "$K" --data-dir s consume --topic s --partition 0 --offset $mid --max-messages 1; done | median)
  echo "  seek to offset $mid and print it: ${s_s} s"
}
echo "seek, 10 segments of 1 MiB:"; seek 100000 1048576
echo "seek, 10 segments of 20 MiB:"; seek 2000000 21000000
