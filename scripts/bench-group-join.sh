#!/usr/bin/env bash
# Times a member joining a stable live group of 3 (`kafkit consume --group`, 3 partitions,
# group.initial.rebalance.delay.ms=0, heartbeat.interval.ms=100): from the 4th process's start
# to the last of the four members logging its new assignment (their `Adding newly assigned
# partitions` lines, millisecond timestamps). The others learn of the rebalance at their next
# heartbeat, so heartbeat.interval.ms bounds it (Kafka's default of 3000 ms would too).
#
#   scripts/bench-group-join.sh [RUNS]      (default 5; KAFKIT=path picks the binary, else the
#                                            release build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
if [ -z "${KAFKIT:-}" ]; then
    cargo build --release --quiet
    KAFKIT=${CARGO_TARGET_DIR:-target}/release/kafkit
fi
props=(--consumer-property group.initial.rebalance.delay.ms=0
    --consumer-property heartbeat.interval.ms=100
    --consumer-property group.min.session.timeout.ms=500
    --consumer-property session.timeout.ms=1500)
ms() { date -d "$(echo "$1" | tr -d '[]' | tr , .)" +%s%3N; }
for run in $(seq "$runs"); do
    data=$(mktemp -d)
    logs=$(mktemp -d)
    "$KAFKIT" --data-dir "$data" topics --create --topic m --partitions 3 >/dev/null 2>&1
    pids=()
    for n in a b c; do
        "$KAFKIT" --data-dir "$data" consume --topic m --group g "${props[@]}" >/dev/null 2>"$logs/$n" &
        pids+=($!)
        sleep 0.7
    done
    sleep 1.5
    start=$(date +%s%3N)
    "$KAFKIT" --data-dir "$data" consume --topic m --group g "${props[@]}" >/dev/null 2>"$logs/d" &
    pids+=($!)
    sleep 2
    last=0
    for n in a b c d; do
        line=$(grep 'Adding newly assigned' "$logs/$n" | tail -1)
        t=$(ms "$(echo "$line" | cut -c1-25)")
        if [ "$t" -lt "$start" ]; then
            echo "run $run: member $n took no new assignment" >&2
            exit 1
        fi
        [ "$t" -gt "$last" ] && last=$t
    done
    echo "run $run: $((last - start)) ms"
    kill "${pids[@]}"
    wait 2>/dev/null || true
    rm -rf "$data" "$logs"
done
