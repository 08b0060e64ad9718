#!/usr/bin/env bash
# Exactly-once sources (KIP-618) beside at-least-once on the harness broker: a one-worker
# `connect-rs standalone --distributed` cluster copies LINES lines of 100 bytes with
# FileStreamSource -> Kafka topic (1 partition, created beforehand) -> FileStreamSink, once with
# exactly.once.source.support=disabled (at-least-once) and once with `enabled` and
# transaction.boundary=poll (a transaction per poll of up to batch.size lines). The two
# alternate, BENCH_RUNS rounds (default 5); each figure is the median with min - max.
#
#   bash bench/kafka-eos.sh [LINES]          (default 1000000)
#
# Per run (fresh group, internal topics, data topic and connector names):
#   seconds   from process start until the sink file holds every byte of the input (polled every
#             50 ms; the group join and the first poll are in it, the same for both modes); the
#             output is then checked byte-identical to the input with `cmp`.
#   CPU s     user + system CPU seconds of the process until then (/proc/PID/stat).
# The sink reads with read_committed (librdkafka's default) in both modes.
#
# Environment: BENCH_RUNS, BENCH_BATCH (FileStreamSource batch.size, default 2000),
# BENCH_WORKER_EXTRA (lines appended to the worker file of both modes),
# BENCH_TIMEOUT (seconds per run, default 300), KAFKA_HARNESS_* (passed to the harness).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
LINES=${1:-1000000}
RUNS=${BENCH_RUNS:-5}
BATCH=${BENCH_BATCH:-2000}
TIMEOUT=${BENCH_TIMEOUT:-300}
BIN=$REPO/target/release/connect-rs
HARNESS=$REPO/scripts/kafka-harness.sh
WORK=$(mktemp -d /tmp/connect-rs-eos-bench.XXXXXX)
TICKS=$(getconf CLK_TCK)

BOOTSTRAP=$("$HARNESS" start | sed -n 's/^bootstrap=//p')
[ -n "$BOOTSTRAP" ] || { echo "the harness broker did not start" >&2; exit 1; }

python3 - "$WORK/in.txt" "$LINES" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        f.write(f"line-{i:010d}-".ljust(99, "x") + "\n")
EOF
SIZE=$(stat -c %s "$WORK/in.txt")

cpu_seconds() { # PID -> user+sys seconds
    awk -v t="$TICKS" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"
}

run() { # MODE (alo|eos) N -> "seconds cpu"
    local mode=$1 n=$2 dir=$WORK/$1-$2 id=eosbench-$1-$2-$$
    mkdir -p "$dir"
    local support=disabled
    [ "$mode" = eos ] && support=enabled
    timeout 60 "$HARNESS" tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
        --create --topic "$id-data" --partitions 1 --replication-factor 1 >/dev/null
    cat >"$dir/worker.properties" <<EOF
bootstrap.servers=$BOOTSTRAP
group.id=$id
config.storage.topic=$id-configs
config.storage.replication.factor=1
offset.storage.topic=$id-offsets
offset.storage.replication.factor=1
status.storage.topic=$id-status
status.storage.replication.factor=1
listeners=http://127.0.0.1:0
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
exactly.once.source.support=$support
${BENCH_WORKER_EXTRA:-}
EOF
    cat >"$dir/src.properties" <<EOF
name=src-$id
connector.class=FileStreamSource
tasks.max=1
file=$WORK/in.txt
topic=$id-data
batch.size=$BATCH
transaction.boundary=poll
EOF
    cat >"$dir/dst.properties" <<EOF
name=dst-$id
connector.class=FileStreamSink
tasks.max=1
file=$dir/out.txt
topics=$id-data
EOF
    local start end pid cpu
    start=$(date +%s.%N)
    "$BIN" standalone --distributed --quiet "$dir/worker.properties" "$dir/src.properties" \
        "$dir/dst.properties" >"$dir/log" 2>&1 &
    pid=$!
    while :; do
        if [ -f "$dir/out.txt" ] && [ "$(stat -c %s "$dir/out.txt")" -ge "$SIZE" ]; then break; fi
        if ! kill -0 "$pid" 2>/dev/null; then echo "$mode run $n: the worker exited" >&2; cat "$dir/log" >&2; exit 1; fi
        if (( $(echo "$(date +%s.%N) - $start > $TIMEOUT" | bc) )); then
            kill "$pid"; echo "$mode run $n: timed out" >&2; exit 1
        fi
        sleep 0.05
    done
    end=$(date +%s.%N)
    cpu=$(cpu_seconds "$pid")
    kill -TERM "$pid"; wait "$pid" || true
    cmp -s "$WORK/in.txt" "$dir/out.txt" || { echo "$mode run $n: output differs from the input" >&2; exit 1; }
    echo "$(echo "$end - $start" | bc) $cpu"
}

stats() { # numbers... -> "median (min - max)"
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "%.2f (%.2f - %.2f)", m, a[1], a[NR] }'
}

declare -a alo_s alo_c eos_s eos_c
for n in $(seq 1 "$RUNS"); do
    read -r s c < <(run alo "$n"); alo_s+=("$s"); alo_c+=("$c")
    echo "round $n: at-least-once ${s}s cpu ${c}s" >&2
    read -r s c < <(run eos "$n"); eos_s+=("$s"); eos_c+=("$c")
    echo "round $n: exactly-once  ${s}s cpu ${c}s" >&2
done
echo "$LINES lines of 100 bytes, $RUNS alternating rounds, batch.size=$BATCH, medians (min - max):"
echo "  at-least-once                   seconds $(stats "${alo_s[@]}")   CPU s $(stats "${alo_c[@]}")"
echo "  exactly-once, boundary=poll     seconds $(stats "${eos_s[@]}")   CPU s $(stats "${eos_c[@]}")"
rm -rf "$WORK"
