#!/usr/bin/env bash
# What committing costs a consumer (#17): `kafkit consume --group` against `kafkit consume
# --partition 0 --offset earliest` (assign mode: no group, no commits) over the same partition.
#
#   scripts/bench-consume-commit.sh [WORK_DIR] [ROUNDS]   (default: a fresh directory, 11 rounds)
#
# Data: the 2,000,000 lines of 100 bytes (+ newline) of the other bench scripts, produced COPIES
# times (default 10: 20,000,000 records, 2.2 GB, so that what a run pays once, joining and
# leaving the group, is not what is measured) with --acks 1 into topic `b` of one partition.
# Each round runs, in this order, every command once
# (stdout to /dev/null, every record), and each round's ratios to the assign-mode run
# are taken; the script prints the median wall time of each command and the median of the
# ratios (the machine's speed drifts over minutes: pairs taken a few hundred ms apart keep the
# ratio meaningful):
#   assign       --partition 0 --offset earliest
#   auto         --group (a new group each run) --from-beginning: Kafka's defaults,
#                enable.auto.commit=true every auto.commit.interval.ms=5000, and the commit on close
#   close-only   the same with enable.auto.commit=false (the console consumer commits at close)
#   every-10ms   the same with auto.commit.interval.ms=10: a commit (written and fsynced by the
#                coordinator) every 10 ms, to show what one commit costs
# Every group run sets group.initial.rebalance.delay.ms=0 (Kafka's 3 s default would be the
# whole run; the join itself is measured by scripts/bench-group-join.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${2:-11}
# shellcheck source=scripts/bench-common.sh
. scripts/bench-common.sh "${1:-}"
copies=${COPIES:-10}
records=$((N * copies))
if [ "$(cat d/copies 2>/dev/null)" != "$copies" ]; then
    rm -rf d
    "$K" --data-dir d topics --create --topic b >/dev/null
    for _ in $(seq "$copies"); do
        "$K" --data-dir d produce --topic b --file lines.txt --acks 1
    done
    echo "$copies" >d/copies
fi
cat d/b-0/*.log >/dev/null # page cache
group=(--consumer-property group.initial.rebalance.delay.ms=0)
run() { # $1 = label, then the consume arguments; appends "label wall_ms cpu_ms" to times.txt
    local label=$1
    shift
    local start end
    start=$(date +%s%N)
    /usr/bin/time -o cpu.txt -f "%U %S" "$K" --data-dir d consume --topic b --max-messages "$records" "$@" \
        >/dev/null 2>run.err || { cat run.err >&2; exit 1; }
    end=$(date +%s%N)
    grep -q "Processed a total of $records messages" run.err || { cat run.err >&2; exit 1; }
    echo "$label $(((end - start) / 1000000)) $(awk '{printf "%d", ($1 + $2) * 1000}' cpu.txt)" >>times.txt
}
: >times.txt
echo "machine: $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/ \+/ /g'); load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
    run assign --partition 0 --offset earliest
    run auto --group "auto-$i-$$" --from-beginning "${group[@]}"
    run close-only --group "close-$i-$$" --from-beginning "${group[@]}" \
        --consumer-property enable.auto.commit=false
    run every-10ms --group "often-$i-$$" --from-beginning "${group[@]}" \
        --consumer-property auto.commit.interval.ms=10
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for label in assign auto close-only every-10ms; do
    wall=$(awk -v l="$label" '$1 == l {print $2}' times.txt | median)
    cpu=$(awk -v l="$label" '$1 == l {print $3}' times.txt | median)
    ratio=$(awk -v l="$label" '$1 == "assign" {a = $2} $1 == l {printf "%.3f\n", $2 / a}' times.txt | median)
    echo "$label: median wall ${wall} ms, CPU ${cpu} ms, $((records * 1000 / wall)) records/s; median of the rounds' wall ratios to assign: ${ratio}"
done
