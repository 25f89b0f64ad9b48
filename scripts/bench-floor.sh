#!/usr/bin/env bash
# The floors behind BENCHMARKS.md's "The two sides apart" (produce of 2,000,000 lines against cp):
#
#   scripts/bench-floor.sh [WORK_DIR]     (default: a fresh directory under /tmp; needs gcc, git)
#
# 1. C loops (scripts/floor/): reading the file and cutting its lines (read() or mmap variants),
#    and writing the same number of bytes from a hot buffer, with and without a CRC pass.
#    Then both sides at once, one process each (a two-thread pipeline's floor), and two
#    copies of a spinning loop (do the two cores slow each other?).
# 2. A scan-only kafkit: this tree with scripts/floor/scan-only.patch applied in a temporary
#    worktree (produce reads, splits and parses every line, sends nothing), 5 runs next to cp.
# 3. A no-send kafkit (scripts/floor/no-send.patch: produce encodes every record into batches,
#    the sender hands each buffer back untouched): the calling thread alone, 5 runs next to cp.
# 4. The real build pinned to one core (taskset -c 0) and on both, 5 runs each.
set -euo pipefail
shopt -s inherit_errexit # a failed patch or build inside $(build ...) stops the script
W="$(realpath -m "${1:-$(mktemp -d /tmp/kafkit-floor.XXXXXX)}")"
cd "$(dirname "$0")/.."
ROOT="$PWD"
mkdir -p "$W"
N=2000000
if [ ! -f "$W/lines.txt" ]; then
  python3 -c "
with open('$W/lines.txt', 'w') as f:
    for i in range($N):
        f.write('%010d ' % i + 'x' * 89 + '\n')
"
fi
gcc -O2 -o "$W/read_lines" scripts/floor/read_lines.c
gcc -O2 -msse4.2 -o "$W/write_only" scripts/floor/write_only.c
SIZE=$(stat -c %s "$W/lines.txt")
LOG_BYTES=$((SIZE + N * 9))   # about what produce writes: each record's framing on top
for round in 1 2 3; do
  for mode in 0 1 2 3; do "$W/read_lines" $mode "$W/lines.txt" 256; done
  "$W/write_only" "$W/out" $LOG_BYTES 0; rm -f "$W/out"
  "$W/write_only" "$W/out" $LOG_BYTES 1; rm -f "$W/out"
  rm -f "$W/copy.txt"; /usr/bin/time -f "cp: wall %e user %U sys %S" cp "$W/lines.txt" "$W/copy.txt"; rm -f "$W/copy.txt"
done

cat > "$W/spin.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(void) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  unsigned long y = 1;
  for (long i = 0; i < 400000000; i++) y = y * 6364136223846793005UL + 1442695040888963407UL;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("spin: %.3f s (%lu)\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, y & 1);
  return 0;
}
C
gcc -O2 -o "$W/spin" "$W/spin.c"
for round in 1 2 3; do
  echo "both sides at once:"
  "$W/read_lines" 0 "$W/lines.txt" 256 & "$W/write_only" "$W/out" $LOG_BYTES 1; wait; rm -f "$W/out"
done
echo "spin alone:"; "$W/spin"
echo "two spins at once:"; "$W/spin" & "$W/spin"; wait

build() { # $1 = name, $2 = patch (or "" for this tree as it is): prints the binary's path
  local wt="$W/$1-tree"
  rm -rf "$wt"; git worktree prune
  git worktree add -q --detach "$wt" HEAD
  if [ -n "$2" ]; then git -C "$wt" apply "$ROOT/scripts/floor/$2"; fi
  (cd "$wt" && cargo build --release --quiet) >&2
  echo "$wt/target/release/kafkit"
}
trap 'for t in scan-only no-send real; do git -C "$ROOT" worktree remove --force "$W/$t-tree" 2>/dev/null || true; done' EXIT
SCAN=$(build scan-only scan-only.patch)
NOSEND=$(build no-send no-send.patch)
REAL=$(build real "")
cd "$W"
runs() { # $1 = label, then the command before "--data-dir"
  local label=$1; shift
  for i in 1 2 3 4 5; do
    rm -rf d && "$REAL" --data-dir d topics --create --topic b >/dev/null
    /usr/bin/time -f "$label: wall %e user %U sys %S" "$@" --data-dir d produce --topic b --file lines.txt --acks 1
    rm -f copy.txt; /usr/bin/time -f "cp: wall %e user %U sys %S" cp lines.txt copy.txt; rm -f copy.txt
  done
}
runs "scan-only produce" "$SCAN"
runs "no-send produce" "$NOSEND"
runs "produce on one core" taskset -c 0 "$REAL"
runs "produce" "$REAL"
