#!/usr/bin/env bash
# The floors behind BENCHMARKS.md's "The two sides apart" (produce of 2,000,000 lines against cp):
#
#   scripts/bench-floor.sh [WORK_DIR]     (default: a fresh directory under /tmp; needs gcc, git)
#
# 1. C loops (scripts/floor/): reading the file and cutting its lines (read() or mmap variants),
#    and writing the same number of bytes from a hot buffer, with and without a CRC pass.
# 2. A scan-only kafkit: this tree with scripts/floor/scan-only.patch applied in a temporary
#    worktree (produce reads, splits and parses every line, sends nothing), 5 runs next to cp.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
W="${1:-$(mktemp -d /tmp/kafkit-floor.XXXXXX)}"
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

WT="$W/scan-only-tree"
rm -rf "$WT"; git worktree prune
git worktree add -q --detach "$WT" HEAD
trap 'git -C "$ROOT" worktree remove --force "$WT"' EXIT
git -C "$WT" apply "$ROOT/scripts/floor/scan-only.patch"
(cd "$WT" && cargo build --release --quiet)
K="$WT/target/release/kafkit"
cd "$W"
for i in 1 2 3 4 5; do
  rm -rf d && "$K" --data-dir d topics --create --topic b >/dev/null
  /usr/bin/time -f "scan-only produce: wall %e user %U sys %S" "$K" --data-dir d produce --topic b --file lines.txt --acks 1
  rm -f copy.txt; /usr/bin/time -f "cp: wall %e user %U sys %S" cp lines.txt copy.txt; rm -f copy.txt
done
