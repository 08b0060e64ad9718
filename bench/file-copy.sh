#!/usr/bin/env bash
# Whole-pipeline benchmark on the embedded log: N lines of 100 bytes,
# FileStreamSource -> embedded topic -> FileStreamSink, with StringConverter and with
# JsonConverter (schemas.enable=true). Prints lines/s end to end, CPU time (user + system) and
# peak RSS.
#
#   bash bench/file-copy.sh [LINES]        (default 1000000)
#   BIN=/path/to/connect-rs bash bench/file-copy.sh   (that binary, no build; e.g. to compare
#                                                      two builds in alternating runs)
#
# The run ends with --exit-when-idle=IDLE; the idle window is subtracted from the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-1000000}
IDLE_MS=200
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/connect-rs
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK/in.txt" "$LINES" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    for i in range(n):
        head = b"line-%010d-" % i
        f.write(head + b"x" * (99 - len(head)) + b"\n")
PY

run() {
  local label=$1 converter=$2 extra=$3
  local dir=$WORK/$label
  mkdir -p "$dir"
  cat > "$dir/worker.properties" <<PROPS
key.converter=$converter
value.converter=$converter
$extra
embedded.log.dir=$dir/data
PROPS
  printf 'name=src\nconnector.class=FileStreamSource\nfile=%s\ntopic=lines\n' "$WORK/in.txt" > "$dir/src.properties"
  printf 'name=dst\nconnector.class=FileStreamSink\nfile=%s\ntopics=lines\n' "$dir/out.txt" > "$dir/dst.properties"
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$dir/rss" "$BIN" --log-level warn standalone --exit-when-idle=${IDLE_MS}ms \
    "$dir/worker.properties" "$dir/src.properties" "$dir/dst.properties"
  end=$(date +%s.%N)
  cmp -s "$WORK/in.txt" "$dir/out.txt" || { echo "$label: output differs from input" >&2; exit 1; }
  python3 - "$label" "$LINES" "$start" "$end" "$IDLE_MS" $(cat "$dir/rss") <<'PY'
import sys
label, n, start, end, idle, rss = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
cpu = float(sys.argv[7]) + float(sys.argv[8])
busy = (end - start) - idle / 1000
print(f"{label:<28} {n:>9} lines  wall {end - start:6.2f} s  busy {busy:6.2f} s  {n / busy:>12,.0f} lines/s  CPU {cpu:5.2f} s  peak RSS {rss / 1024:6.1f} MiB")
PY
}

[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
run string org.apache.kafka.connect.storage.StringConverter ""
run json-schemas org.apache.kafka.connect.json.JsonConverter "value.converter.schemas.enable=true"
