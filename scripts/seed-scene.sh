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

# What consumer $1 owns by its log: its rebalance lines replayed, as "t-p t-p ".
owned() {
  awk '/Adding newly assigned partitions: / || /(Revoke|Lost) previously assigned partitions / {
         add = /Adding/
         sub(/.*assigned partitions:? /, ""); sub(/ \(org\.apache.*/, "")
         n = split($0, list, ", ")
         for (i = 1; i <= n; i++) if (add) own[list[i]] = 1; else delete own[list[i]]
       }
       END { for (p in own) if (p != "") print p }' "$1.log" | sort | tr '\n' ' '
}

# What the coordinator assigned to client $1 (one topic), as "t-p t-p ".
assigned() {
  kafkit consumer-groups --describe --group shop --members --verbose 2>/dev/null |
    awk -v c="$1" '$1 == "shop" && $4 == c && $NF != "-" {
      topic = $NF; sub(/\(.*/, "", topic)
      list = $NF; gsub(/.*\(|\)/, "", list)
      n = split(list, p, ",")
      for (i = 1; i <= n; i++) print topic "-" p[i]
    }' | sort | tr '\n' ' '
}

# Whether each of the members $1... owns, by its log, what the coordinator gave it.
views_agree() {
  local member
  for member in "$@"; do
    [[ "$(owned "$member")" == "$(assigned "$member")" ]] || return 1
  done
}

# Waits (up to 60 s) until the group is Stable with the members $1..., every partition's offset
# is committed with no lag, and each member's log says it owns what the coordinator gave it.
settle() {
  local deadline=$((SECONDS + 60)) member
  until kafkit consumer-groups --describe --group shop --state 2>/dev/null | grep -Eq "Stable +$#\$" &&
    kafkit consumer-groups --describe --group shop 2>/dev/null |
      awk '$1 == "shop" { rows++; if ($6 != "0" || $7 == "-") bad = 1 }
           END { exit !(rows == 3 && !bad) }' &&
    views_agree "$@"; do
    if ((SECONDS > deadline)); then
      echo "the group never settled with members $*" >&2
      exit 1
    fi
    sleep 0.1
  done
}

show kafkit topics --create --topic orders --partitions 3 2>/dev/null
show "printf 'alice:pen\nbob:ink\ncarol:pad\ndave:cap\nerin:nib\nfrank:pin\n' | kafkit produce --topic orders --property parse.key=true --property key.separator=:"
printf 'session.timeout.ms=6000\nheartbeat.interval.ms=1000\nauto.commit.interval.ms=1000\ngroup.initial.rebalance.delay.ms=0\nauto.offset.reset=earliest\n' >shop.properties
show cat shop.properties

# c1 first: it hosts the group's coordinator (the first member does), so the member killed below
# is an ordinary member, dropped after its session timeout.
start c1
settle c1
start c2
start c3
settle c1 c2 c3
show kafkit consumer-groups --describe --group shop

start c4
settle c1 c2 c3 c4
show kafkit consumer-groups --describe --group shop --members --verbose
show "grep -e Revoke -e Adding c4.log"

printf '$ kill -9 %%2    # c2\n'
kill -9 "${pids[1]}"
show kafkit consumer-groups --describe --group shop --members
settle c1 c3 c4
show kafkit consumer-groups --describe --group shop
show "grep -e Revoke -e Adding c3.log | tail -n 2"
show "grep -e Revoke -e Adding c4.log | tail -n 2"
