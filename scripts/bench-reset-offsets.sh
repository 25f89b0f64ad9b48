#!/usr/bin/env bash
# Times `kafkit consumer-groups --reset-offsets` of a group over a 1,000-partition topic
# (20,000 keyed records spread by murmur2): the dry runs of three scenarios (log starts, a
# clamped offset: start and end of every partition, a timestamp lookup), then `--execute`
# (the first hosts the coordinator and makes `__consumer_offsets`), a `--shift-by --execute`
# of the committed partitions, and `--delete` of the group. Each run's wall time, in ms.
#
#   scripts/bench-reset-offsets.sh [RUNS]      (default 5; KAFKIT=path picks the binary, else
#                                                the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
if [ -z "${KAFKIT:-}" ]; then
    cargo build --release --quiet
    KAFKIT=${CARGO_TARGET_DIR:-target}/release/kafkit
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export KAFKIT_DATA_DIR=$data/kafka-logs
"$KAFKIT" topics --create --topic big --partitions 1000 >/dev/null 2>&1
seq 1 20000 | awk '{print $1"\t"$1}' | "$KAFKIT" produce --topic big --property parse.key=true >/dev/null
timed() {
    local what=$1
    shift
    local times=()
    for _ in $(seq "$runs"); do
        start=$(date +%s%N)
        "$KAFKIT" consumer-groups "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        times+=("$(( (end - start) / 1000000 ))")
    done
    echo "$what: ${times[*]} ms"
}
timed "dry run --to-earliest" --reset-offsets --group b --topic big --to-earliest --dry-run
timed "dry run --to-offset 5 (clamped)" --reset-offsets --group b --topic big --to-offset 5 --dry-run
timed "dry run --to-datetime" --reset-offsets --group b --topic big --to-datetime 2020-01-01T00:00:00.000 --dry-run
timed "--to-offset 5 --execute" --reset-offsets --group b --topic big --to-offset 5 --execute
timed "--all-topics --shift-by -1 --execute" --reset-offsets --group b --all-topics --shift-by -1 --execute
timed "--delete (then absent)" --delete --group b
