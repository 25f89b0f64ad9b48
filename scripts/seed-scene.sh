#!/usr/bin/env bash
# The seed notes' consumer-group scene, run for real: three consumers of one group share three
# partitions, a fourth waits idle, one is killed with kill -9 and its partition moves.
#
#   PATH=target/release:$PATH scripts/seed-scene.sh
#
# It prints a transcript (each command after `$ `, then what it printed) that README.md shows;
# tests/live_groups.rs runs this script and compares its transcript with the README's block
# (member ids, which are random, and log times compared as placeholders). The consumers are
# separate processes in a scratch data directory; the script waits for each step to settle by
# polling `consumer-groups --describe`, never by sleeping a guessed time.
set -euo pipefail

command -v kafkit >/dev/null || { echo "kafkit is not on PATH" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in {1..100}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export KAFKIT_DATA_DIR="$work/kafka-logs"

# Shows a command, then runs it.
show() {
  printf '$ %s\n' "$*"
  eval "$*"
}

# Starts consumer $1 of group shop in the background, its records in $1.out, its log in $1.log.
start() {
  printf '$ kafkit consume --topic orders --group shop --consumer.config shop.properties --consumer-property client.id=%s > %s.out 2> %s.log &\n' "$1" "$1" "$1"
  kafkit consume --topic orders --group shop --consumer.config shop.properties \
    --consumer-property "client.id=$1" >"$1.out" 2>"$1.log" &
  pids+=("$!")
  # No "Killed" notice from this shell when one is killed.
  disown "$!"
}

# Waits (up to 60 s) until the group is Stable with $1 members and every partition that a
# member owns has its offset committed with no lag.
settle() {
  local deadline=$((SECONDS + 60))
  until kafkit consumer-groups --describe --group shop --state 2>/dev/null | grep -Eq "Stable +$1\$" &&
    kafkit consumer-groups --describe --group shop 2>/dev/null |
      awk -v n="$1" '$1 == "shop" { rows++; if ($6 != "0" || $7 == "-") bad = 1 }
                     END { exit !(rows == 3 && !bad) }'; do
    if ((SECONDS > deadline)); then
      echo "the group never settled with $1 members" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# Waits until file $1 has more than $2 lines.
grown() {
  local deadline=$((SECONDS + 60))
  until (($(wc -l <"$1") > $2)); do
    ((SECONDS > deadline)) && { echo "$1 never grew" >&2; exit 1; }
    sleep 0.1
  done
}

show kafkit topics --create --topic orders --partitions 3 2>/dev/null
show "printf 'alice:pen\nbob:ink\ncarol:pad\ndave:cap\nerin:nib\nfrank:pin\n' | kafkit produce --topic orders --property parse.key=true --property key.separator=:"
printf 'session.timeout.ms=6000\nheartbeat.interval.ms=1000\nauto.commit.interval.ms=1000\ngroup.initial.rebalance.delay.ms=0\nauto.offset.reset=earliest\n' >shop.properties
show cat shop.properties

for c in c1 c2 c3; do start "$c"; done
settle 3
show kafkit consumer-groups --describe --group shop

start c4
settle 4
show kafkit consumer-groups --describe --group shop --members --verbose
show cat c4.log

c3_lines=$(wc -l <c3.log)
printf '$ kill -9 %%2    # c2\n'
kill -9 "${pids[1]}"
show kafkit consumer-groups --describe --group shop --members
settle 3
grown c3.log $((c3_lines + 1))
show kafkit consumer-groups --describe --group shop
show tail -n 2 c3.log c4.log
