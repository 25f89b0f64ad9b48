#!/usr/bin/env bash
# Times Apache Kafka's own DumpLogSegments (the JVM tool behind kafka-dump-log.sh) against
# `kafkit dump-log-segments` on the same segment files, and diffs their standard output.
# Not run by CI. See BENCHMARKS.md, "dump-log-segments" / "Against Kafka's own tool".
#
#   scripts/bench-against-kafka.sh
#
# Environment (all optional):
#   KAFKA_VERSION    kafka_2.13 version to fetch with Maven (default 4.1.0; 4.0-4.2 ship the Scala
#                    kafka.tools.DumpLogSegments, newer ones the Java port in kafka-tools)
#   KAFKA_JARS       classpath folder, outside the repository (default /tmp/kafka-jars)
#   JAVA             java binary (default: java on PATH; Kafka 4.x needs Java 17+)
#   KAFKIT_BENCH_MB  size of the timed segments in MiB (default 1024)
#   CMP_MB           size of the segment whose outputs are diffed (default 16)
#   RUNS             timed runs per command (default 3)
#
# Needs: mvn (reaching Maven Central), java, cargo, /usr/bin/time, unzip.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
KAFKA_VERSION=${KAFKA_VERSION:-4.1.0}
KAFKA_JARS=${KAFKA_JARS:-/tmp/kafka-jars}
JAVA=${JAVA:-java}
MB=${KAFKIT_BENCH_MB:-1024}
CMP_MB=${CMP_MB:-16}
RUNS=${RUNS:-3}
KAFKIT=$ROOT/target/release/kafkit
OUT=${BENCH_OUT:-/tmp/kafkit-vs-kafka}
mkdir -p "$OUT"

say() { printf '%s\n' "$*" >&2; }

# --- 1. Kafka's classpath -------------------------------------------------------------------
fetch_jars() {
    case "$KAFKA_JARS" in "$ROOT"/*) say "KAFKA_JARS must be outside the repository"; exit 2 ;; esac
    mkdir -p "$KAFKA_JARS"
    if ls "$KAFKA_JARS"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null 2>&1; then return; fi
    local pom_dir
    pom_dir=$(mktemp -d /tmp/kafka-pom.XXXXXX)
    cat >"$pom_dir/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.tmp</groupId><artifactId>kafka-jars</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
  </dependencies>
</project>
EOF
    say "fetching org.apache.kafka:kafka_2.13:$KAFKA_VERSION and its dependencies into $KAFKA_JARS"
    if ! (cd "$pom_dir" && mvn -q dependency:copy-dependencies -DoutputDirectory="$KAFKA_JARS"); then
        say "mvn could not fetch Kafka $KAFKA_VERSION (is Maven Central reachable?)"
        exit 1
    fi
    rm -rf "$pom_dir"
}
fetch_jars

DUMP_CLASS=
for jar in "$KAFKA_JARS"/kafka_2.13-*.jar "$KAFKA_JARS"/kafka-tools-*.jar; do
    [ -f "$jar" ] || continue
    listing=$(unzip -l "$jar")
    if grep -q ' kafka/tools/DumpLogSegments.class$' <<<"$listing"; then DUMP_CLASS=kafka.tools.DumpLogSegments; break; fi
    if grep -q ' org/apache/kafka/tools/DumpLogSegments.class$' <<<"$listing"; then DUMP_CLASS=org.apache.kafka.tools.DumpLogSegments; break; fi
done
[ -n "$DUMP_CLASS" ] || { say "no DumpLogSegments class in $KAFKA_JARS"; exit 1; }

# Log4j 2 to stderr at WARN, so nothing but the dump reaches stdout.
LOG4J=$OUT/log4j2.properties
cat >"$LOG4J" <<'EOF'
status = error
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d %p %c: %m%n
rootLogger.level = warn
rootLogger.appenderRef.err.ref = STDERR
EOF
# /usr/bin/time runs a command, not a shell function: a small wrapper script.
KAFKA_DUMP=$OUT/kafka-dump-log
cat >"$KAFKA_DUMP" <<EOF
#!/bin/sh
exec "$JAVA" -Dlog4j2.configurationFile="$LOG4J" -cp "$KAFKA_JARS/*" $DUMP_CLASS "\$@"
EOF
chmod +x "$KAFKA_DUMP"

# --- 2. kafkit and the data -----------------------------------------------------------------
[ -x "$KAFKIT" ] || cargo build --release
segment_for() { echo "$ROOT/target/bench-data/dump-$1-none-0/00000000000000000000.log"; }
for mb in "$MB" "$CMP_MB"; do
    if [ ! -f "$(segment_for "$mb")" ]; then
        say "writing $mb MiB segments (cargo bench --bench dump)"
        KAFKIT_BENCH_MB=$mb cargo bench --bench dump -- no-such-bench >/dev/null
    fi
done
F=$(segment_for "$MB")
C=$(segment_for "$CMP_MB")

# --- 3. Timings -----------------------------------------------------------------------------
# time_runs LABEL CMD... : RUNS runs, stdout to /dev/null; prints "LABEL<TAB>t1 t2 t3<TAB>median<TAB>maxRSS"
time_runs() {
    local label=$1; shift
    local times=() rss=0 line t m
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -o "$OUT/time.out" -f "%e %M" "$@" >/dev/null 2>"$OUT/run.stderr" \
            || { say "failed: $*"; cat "$OUT/run.stderr" >&2; exit 1; }
        line=$(tail -1 "$OUT/time.out")
        t=${line% *}; m=${line#* }
        times+=("$t"); [ "$m" -gt "$rss" ] && rss=$m
    done
    local med
    med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%s\t%s\t%s\t%s\n' "$label" "${times[*]}" "$med" "$rss"
}

cat "$F" "$C" >/dev/null   # page cache
say "machine: $(nproc) cores; $("$JAVA" -version 2>&1 | head -1); Kafka $KAFKA_VERSION ($DUMP_CLASS)"
say "segment: $F ($(stat -c %s "$F") bytes)"
say "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
RESULTS=$OUT/times.tsv
: >"$RESULTS"
time_runs "kafka batches" "$KAFKA_DUMP" --files "$F" >>"$RESULTS"
time_runs "kafkit batches" "$KAFKIT" dump-log-segments --files "$F" >>"$RESULTS"
time_runs "kafka deep-print" "$KAFKA_DUMP" --files "$F" --deep-iteration --print-data-log >>"$RESULTS"
time_runs "kafkit deep-print" "$KAFKIT" dump-log-segments --files "$F" --deep-iteration --print-data-log >>"$RESULTS"
say "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "| mode | Kafka $KAFKA_VERSION wall time (s) | kafkit wall time (s) | speed-up (medians) | Kafka peak RSS | kafkit peak RSS |"
echo "|---|---|---|---|---|---|"
for mode in batches deep-print; do
    k=$(grep -P "^kafka $mode\t" "$RESULTS"); r=$(grep -P "^kafkit $mode\t" "$RESULTS")
    kt=$(cut -f2 <<<"$k"); km=$(cut -f3 <<<"$k"); kr=$(cut -f4 <<<"$k")
    rt=$(cut -f2 <<<"$r"); rm_=$(cut -f3 <<<"$r"); rr=$(cut -f4 <<<"$r")
    sp=$(awk -v a="$km" -v b="$rm_" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else print "n/a" }')
    echo "| $mode | ${kt// / / } | ${rt// / / } | $sp | $((kr / 1024)) MB | $((rr / 1024)) MB |"
done

# --- 4. Output equality ---------------------------------------------------------------------
echo
for mode in batches deep-print; do
    args=(--files "$C"); [ "$mode" = deep-print ] && args+=(--deep-iteration --print-data-log)
    "$KAFKA_DUMP" "${args[@]}" >"$OUT/kafka.$mode.txt" 2>"$OUT/kafka.$mode.stderr"
    "$KAFKIT" dump-log-segments "${args[@]}" >"$OUT/kafkit.$mode.txt" 2>"$OUT/kafkit.$mode.stderr"
    if cmp -s "$OUT/kafka.$mode.txt" "$OUT/kafkit.$mode.txt"; then
        echo "$mode, $CMP_MB MiB segment: stdout identical ($(wc -l <"$OUT/kafka.$mode.txt") lines)"
    else
        echo "$mode, $CMP_MB MiB segment: stdout DIFFERS; first differences:"
        diff "$OUT/kafka.$mode.txt" "$OUT/kafkit.$mode.txt" | head -10
    fi
done
