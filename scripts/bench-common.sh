# Sourced by the bench-*.sh scripts: builds the release binary, enters the work directory
# (the script's first argument, else a fresh one under /tmp) with the 2,000,000 lines of 100
# bytes (+ newline) of lines.txt, and defines `median`.
#   K: the release binary (under $CARGO_TARGET_DIR, default target/); N: the line count.
cargo build --release --quiet
K="$(realpath "${CARGO_TARGET_DIR:-target}")/release/kafkit"
W="${1:-$(mktemp -d /tmp/kafkit-bench.XXXXXX)}"
mkdir -p "$W"
cd "$W"
N=2000000
if [ ! -f lines.txt ]; then
  python3 -c "
with open('lines.txt', 'w') as f:
    for i in range($N):
        f.write('%010d ' % i + 'x' * 89 + '\n')
"
fi
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
