#!/usr/bin/env bash
# Times `kafkit log-cleaner` compacting about 1 GiB of uncompressed records with 1,000,000
# distinct keys: 4,000,000 records of ~270 bytes (each key written 4 times), in 1 GiB segments
# rolled every 256 MiB (segment.bytes=268435456), with Kafka's default dedupe buffer (128 MiB).
# Reports the wall time, the dirty bytes per second and the peak RSS (`/usr/bin/time -v`).
#
#   scripts/bench-compaction.sh      (KAFKIT=path picks the binary, else the release build;
#                                     DIR=path a scratch directory with 2.5 GB free, else mktemp)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KAFKIT:-}" ]; then
    cargo build --release --quiet
    KAFKIT=${CARGO_TARGET_DIR:-target}/release/kafkit
fi
data=${DIR:-$(mktemp -d)}
trap 'rm -rf "$data"' EXIT
"$KAFKIT" --data-dir "$data" topics --create --topic big \
    --config cleanup.policy=compact --config segment.bytes=268435456 --config segment.ms=600000 \
    >/dev/null 2>&1
pad=$(head -c 240 /dev/zero | tr '\0' v)
python3 - "$pad" <<'PY' | "$KAFKIT" --data-dir "$data" produce --topic big --property parse.key=true --acks 1 >/dev/null
import sys
pad = sys.argv[1]
out = sys.stdout
for round in range(4):
    out.write("".join("key-%07d\t%d-%s\n" % (k, round, pad) for k in range(1_000_000)))
PY
# Roll the active segment so that everything written is cleanable: a record 20 minutes ahead
# (segment.ms is 10 minutes; message.timestamp.after.max.ms allows an hour).
ahead=$(( $(date +%s%3N) + 1200000 ))
echo "{\"key\":\"last\",\"value\":\"x\",\"timestamp\":$ahead}" |
    "$KAFKIT" --data-dir "$data" produce --topic big --input json >/dev/null
sync
# The dirty log: every segment but the active (last) one.
dirty=$(ls "$data"/big-0/*.log | head -n -1 | xargs du -cb | tail -1 | cut -f1)
echo "dirty log: $dirty bytes in $(( $(ls "$data"/big-0/*.log | wc -l) - 1 )) closed segments"
"$KAFKIT" --data-dir "$data" log-cleaner --topic big --dry-run | head -2
/usr/bin/time -v "$KAFKIT" --data-dir "$data" log-cleaner --topic big 2>"$data/time" | head -2
wall=$(grep 'Elapsed (wall clock)' "$data/time" | sed 's/.*: //')
rss=$(grep 'Maximum resident' "$data/time" | sed 's/.*: //')
secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
echo "compaction: $wall wall, $(awk -v b="$dirty" -v s="$secs" 'BEGIN { printf "%.0f", b / s / 1048576 }') MiB/s of dirty log, max RSS $rss KB"
echo "after: $(ls "$data"/big-0/*.log | head -n -1 | xargs du -cb | tail -1 | cut -f1) bytes in closed segments"
