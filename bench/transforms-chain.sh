#!/usr/bin/env bash
# Cost of a transform chain on the embedded 1M-line copy: JSON lines of ~100 bytes,
# FileStreamSource (StringConverter) -> embedded topic -> FileStreamSink whose value converter is
# JsonConverter (schemas.enable=false, records are maps), run alternately
#   - without transforms, and
#   - with InsertField$Value (static field) + ReplaceField$Value (a rename) + Cast$Value
#     (an int64 field to string) on the sink,
# RUNS times each (default 5). Prints every run, then the median and min-max of lines/s and of
# lines per CPU second (user + system time of the process, steadier than wall time on a shared
# machine) for each, and the median ratio chain/plain (runs paired side by side).
#
#   bash bench/transforms-chain.sh [LINES] [RUNS]      (defaults 1000000 5)
#   BIN=/path/to/connect-rs bash bench/transforms-chain.sh ...   (another build; no cargo build)
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-1000000}
RUNS=${2:-5}
IDLE_MS=200
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/connect-rs
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

python3 - "$WORK/in.txt" "$LINES" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    for i in range(n):
        head = b'{"id":%d,"name":"user-%d","msg":"' % (i, i % 1000)
        f.write(head + b"x" * (97 - len(head)) + b'"}\n')
PY

CHAIN='transforms=add,rename,cast
transforms.add.type=org.apache.kafka.connect.transforms.InsertField$Value
transforms.add.static.field=origin
transforms.add.static.value=bench
transforms.rename.type=org.apache.kafka.connect.transforms.ReplaceField$Value
transforms.rename.renames=msg:message
transforms.cast.type=org.apache.kafka.connect.transforms.Cast$Value
transforms.cast.spec=id:string'

# run LABEL CHAIN_LINES -> prints lines/s
run() {
  local label=$1 chain=$2
  local dir=$WORK/$label
  rm -rf "$dir"; mkdir -p "$dir"
  cat > "$dir/worker.properties" <<PROPS
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
embedded.log.dir=$dir/data
PROPS
  printf 'name=src\nconnector.class=FileStreamSource\nfile=%s\ntopic=lines\n' "$WORK/in.txt" > "$dir/src.properties"
  printf 'name=dst\nconnector.class=FileStreamSink\nfile=%s\ntopics=lines\nvalue.converter=org.apache.kafka.connect.json.JsonConverter\nvalue.converter.schemas.enable=false\n%s\n' \
    "$dir/out.txt" "$chain" > "$dir/dst.properties"
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$dir/cpu" "$BIN" --log-level warn standalone --exit-when-idle=${IDLE_MS}ms \
    "$dir/worker.properties" "$dir/src.properties" "$dir/dst.properties"
  end=$(date +%s.%N)
  local got
  got=$(wc -l < "$dir/out.txt")
  [ "$got" -eq "$LINES" ] || { echo "$label: $got lines written, expected $LINES" >&2; exit 1; }
  if [ -n "$chain" ]; then
    head -1 "$dir/out.txt" | grep -q 'origin=bench' || { echo "$label: chain not applied: $(head -1 "$dir/out.txt")" >&2; exit 1; }
  fi
  # lines per wall-clock second (idle wait excluded) and lines per CPU second (user + system)
  python3 -c "import sys; n,s,e,i=int(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]),int(sys.argv[4]); u,k=map(float,open(sys.argv[5]).read().split()[-2:]); print(round(n/((e-s)-i/1000)), round(n/(u+k)))" \
    "$LINES" "$start" "$end" "$IDLE_MS" "$dir/cpu"
}

plain=(); chain=(); plain_cpu=(); chain_cpu=()
for i in $(seq 1 "$RUNS"); do
  read -r p pc < <(run plain "")
  read -r c cc < <(run chain "$CHAIN")
  echo "run $i: plain $p lines/s ($pc per CPU s), chain $c lines/s ($cc per CPU s)"
  plain+=("$p"); chain+=("$c"); plain_cpu+=("$pc"); chain_cpu+=("$cc")
done
python3 - "${plain[*]}" "${chain[*]}" "${plain_cpu[*]}" "${chain_cpu[*]}" <<'PY'
import statistics, sys
plain, chain, plain_cpu, chain_cpu = ([int(x) for x in a.split()] for a in sys.argv[1:5])
def report(what, p, c):
    ratios = [b / a for a, b in zip(p, c)]
    for label, xs in (("plain", p), ("chain", c)):
        print(f"{what} {label}: median {statistics.median(xs):,.0f} (min {min(xs):,} - max {max(xs):,})")
    print(f"{what} chain/plain: median {statistics.median(ratios):.3f} (min {min(ratios):.3f} - max {max(ratios):.3f}); cost {100 * (1 - statistics.median(ratios)):.1f} %")
report("lines/s", plain, chain)
report("lines per CPU second", plain_cpu, chain_cpu)
PY
