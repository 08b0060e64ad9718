#!/usr/bin/env bash
# Side-by-side benchmark against a real Apache Kafka broker: connect-rs versus Apache Kafka
# Connect's own standalone worker (org.apache.kafka.connect.cli.ConnectStandalone), both running
# FileStreamSource -> Kafka topic -> FileStreamSink with StringConverter, on the broker of
# scripts/kafka-harness.sh, plus the broker's raw ceiling from ProducerPerformance.
#
#   bash bench/kafka-side-by-side.sh [LINES]          (default 1000000 lines of 100 bytes)
#
# One round runs, in this order: connect-rs on a topic the run's producer auto-creates (the
# broker's auto.create.topics.enable, as in Kafka Connect's own quickstart), connect-rs on a topic
# created beforehand (1 partition), Kafka Connect on an auto-created topic (and on a pre-created
# one with BENCH_KC_PRECREATED=1), then ProducerPerformance with default client settings and with
# tuned ones (batch.size=1048576 linger.ms=20). BENCH_RUNS rounds (default 5); every figure is
# reported as the median with min - max, and the ratios are taken between medians of runs that
# alternated on the same broker.
#
# Per system (a fresh topic, fresh connector names = consumer group, fresh offsets file each):
#   records/s       LINES / (time from process start until the sink file holds every byte of
#                   the input); the file size is polled every 50 ms (10 ms until the first
#                   record is seen); then the process gets SIGTERM and the output is checked
#                   byte-identical to the input with `cmp`.
#   peak RSS        VmHWM of the process (/proc/PID/status), sampled when the output is
#                   complete, just before SIGTERM. For Kafka Connect that is the JVM's RSS.
#   CPU s / M       user + system CPU seconds of the process (/proc/PID/stat) from start until
#                   the output is complete, per million records (steadier than wall-clock rates
#                   on a shared machine). For ProducerPerformance: its whole JVM run.
#   first record    time from process start until the topic's end offset (high watermark) > 0,
#                   probed by a small Python Kafka client (ListOffsets v1, one persistent
#                   connection to the bootstrap broker, every 10 ms); also reported: the first
#                   complete line in the sink file, and the time all LINES records are in Kafka.
#   ratio           connect-rs / Kafka Connect for each figure.
# The worker file is the same for both (bootstrap.servers, StringConverter for keys and values,
# offset.storage.file.filename, offset.flush.interval.ms=10000, and listeners=http://127.0.0.1:0
# so Kafka Connect's REST server takes a free port; connect-rs warns that it ignores that key).
# Caveat: a sink that buffers output until its next flush (offset.flush.interval.ms) completes
# the file late; the report then prints a NOTE, and the "start -> all records in Kafka" figures
# show the pipeline without that wait.
#
# Any run that fails (a process that cannot start, exits early, times out, or writes output that
# differs from the input) makes the script exit 1 after the report; nothing is skipped silently.
#
# The Kafka Connect jars come from scripts/kafka-connect-jars.sh (Maven Central, once, into
# target/kafka-connect/libs/; 4.3.1 while connect-file 4.4.0 is not on Maven Central). All jars
# go on the class path; no plugin.path.
#
# Environment:
#   BENCH_RUNS             rounds (default 5); the tables show medians and min - max
#   BENCH_SKIP             words among: connect-rs kafka-connect perf (leave those parts out; the
#                          report says so)
#   BENCH_KC_PRECREATED=1  also run Kafka Connect on a pre-created topic
#   BENCH_WARMUP=0         no unmeasured ProducerPerformance run before the rounds (it warms a
#                          freshly started broker's JIT; skipped anyway with BENCH_SKIP=perf)
#   BENCH_NO_BUILD=1       do not run `cargo build --release` (use target/release/connect-rs as is)
#   BENCH_OFFSET_FLUSH_MS  offset.flush.interval.ms of the worker file (default 10000)
#   BENCH_TIMEOUT          seconds a pipeline may take before it counts as failed (default 300)
#   BENCH_KEEP=1           keep output files and the run's topics
#   KAFKA_CONNECT_HEAP_OPTS  default "-Xms256m -Xmx1g"
#   KAFKA_CONNECT_JVM_OPTS   default: the G1 flags of Kafka's kafka-run-class.sh
#   CONNECT_FALLBACK_VERSION  Kafka Connect version used when KAFKA_VERSION's is not complete
#                          on Maven Central (default 4.3.1, the newest connect-file there)
#   KAFKA_HARNESS_*        passed to scripts/kafka-harness.sh (e.g. KAFKA_HARNESS_INSTANCE)
#
# The broker is started (or reused) with `scripts/kafka-harness.sh start` and left running;
# stop it with `scripts/kafka-harness.sh stop`. Run artefacts (configs, logs, results) stay in
# target/kafka-connect-bench/runs/RUN_ID/.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
INVOCATION="bash bench/kafka-side-by-side.sh${1:+ $1}"
for _v in $(compgen -e | grep -E '^(BENCH_[A-Z_]+|KAFKA_CONNECT_(HEAP|JVM)_OPTS|CONNECT_FALLBACK_VERSION|KAFKA_HARNESS_[A-Z_]+)$' || true); do
  [[ -n "${!_v:-}" ]] && INVOCATION="$_v=$(printf '%q' "${!_v}") $INVOCATION"
done

LINES=${1:-1000000}
[[ "$LINES" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bash bench/kafka-side-by-side.sh [LINES]" >&2; exit 2; }
LINE_BYTES=100
EXPECTED_BYTES=$((LINES * LINE_BYTES))
TIMEOUT=${BENCH_TIMEOUT:-300}
RUNS=${BENCH_RUNS:-5}
OFFSET_FLUSH_MS=${BENCH_OFFSET_FLUSH_MS:-10000}
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_RUNS must be a positive number" >&2; exit 2; }
SKIP=" ${BENCH_SKIP:-} "
HARNESS=$REPO/scripts/kafka-harness.sh
BENCH_DIR=$REPO/target/kafka-connect-bench
LIBS_DIR=""
HARNESS_LIBS=${KAFKA_HARNESS_DIR:-$REPO/target/kafka-harness}/libs
KAFKA_VERSION=$(sed -n 's/^KAFKA_VERSION="\(.*\)"$/\1/p' "$HARNESS")
LOG4J_VERSION=$(sed -n 's/^LOG4J_VERSION="\(.*\)"$/\1/p' "$HARNESS")
SLF4J_VERSION=$(sed -n 's/^SLF4J_VERSION="\(.*\)"$/\1/p' "$HARNESS")
read -r -a KC_HEAP <<<"${KAFKA_CONNECT_HEAP_OPTS:--Xms256m -Xmx1g}"
read -r -a KC_JVM <<<"${KAFKA_CONNECT_JVM_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}"

log() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }
skipped() { [[ "$SKIP" == *" $1 "* ]]; }

[[ -n "$KAFKA_VERSION" ]] || die "could not read KAFKA_VERSION from $HARNESS"
for tool in java mvn python3 cmp flock; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing on PATH"
done

# ---------------------------------------------------------------------------------------------
# Background processes we start; the trap stops exactly these (by pid).
SYS_PID=""
MON_PID=""
RUN_DIR=""
TOPICS_TO_DELETE=()
BOOTSTRAP=""

stop_pid() { # PID GRACE_SECONDS -> SIGTERM, wait, then SIGKILL; prints nothing
  local pid=$1 grace=$2 i
  [[ -n "$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < grace * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "pid $pid still running ${grace}s after SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "$MON_PID" ]]; then stop_pid "$MON_PID" 2; fi
  if [[ -n "$SYS_PID" ]]; then log "stopping pid $SYS_PID"; stop_pid "$SYS_PID" 30; fi
  if [[ ${#TOPICS_TO_DELETE[@]} -gt 0 && -n "$BOOTSTRAP" && "${BENCH_KEEP:-0}" != 1 ]]; then
    local re
    re=$(IFS='|'; echo "${TOPICS_TO_DELETE[*]}")
    timeout 60 "$HARNESS" tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
      --delete --if-exists --topic "$re" >/dev/null 2>&1 || log "could not delete topics $re (harmless)"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# Kafka Connect jars from Maven Central

fetch_connect_libs() { # sets LIBS_DIR and CONNECT_VERSION (scripts/kafka-connect-jars.sh)
  local out
  out=$("$REPO/scripts/kafka-connect-jars.sh") || die "could not fetch the Kafka Connect jars"
  LIBS_DIR=$(sed -n 's/^libs=//p' <<<"$out")
  CONNECT_VERSION=$(sed -n 's/^version=//p' <<<"$out")
}

# ---------------------------------------------------------------------------------------------
# set-up

mkdir -p "$BENCH_DIR"
CONNECT_VERSION=""
skipped kafka-connect || fetch_connect_libs

CONNECT_RS_BIN=$REPO/target/release/connect-rs
CONNECT_RS_BUILD_ERROR=""
if ! skipped connect-rs && [[ "${BENCH_NO_BUILD:-0}" != 1 ]]; then
  log "cargo build --release"
  if ! cargo build --release --quiet >"$BENCH_DIR/cargo-build.log" 2>&1; then
    CONNECT_RS_BUILD_ERROR="cargo build --release failed (log: target/kafka-connect-bench/cargo-build.log)"
    log "$CONNECT_RS_BUILD_ERROR"
  fi
fi

log "starting (or reusing) the broker: scripts/kafka-harness.sh start"
BOOTSTRAP=$("$HARNESS" start | sed -n 's/^bootstrap=//p' | tail -n1)
[[ "$BOOTSTRAP" =~ ^[^:]+:[0-9]+$ ]] || die "scripts/kafka-harness.sh start printed no bootstrap=HOST:PORT"
log "broker at $BOOTSTRAP"

RUN_ID=$(date +%Y%m%d-%H%M%S)-$$
RUN_DIR=$BENCH_DIR/runs/$RUN_ID
mkdir -p "$RUN_DIR"

INPUT=$BENCH_DIR/input-$LINES.txt
if [[ ! -f "$INPUT" || $(stat -c %s "$INPUT") -ne $EXPECTED_BYTES ]]; then
  log "writing $LINES lines of $LINE_BYTES bytes to $INPUT"
  python3 - "$INPUT.tmp.$$" "$LINES" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    for i in range(n):
        head = b"line-%010d-" % i
        f.write(head + b"x" * (99 - len(head)) + b"\n")
PY
  mv "$INPUT.tmp.$$" "$INPUT"
fi

# Log4j2 configuration for Kafka Connect: WARN and above, to stderr (captured in the run's log).
KC_LOG4J=$RUN_DIR/connect-log4j2.properties
cat >"$KC_LOG4J" <<'L4J'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
L4J

# The probe: waits for the system's pid, then polls the topic's end offset and the sink file.
MONITOR=$RUN_DIR/monitor.py
cat >"$MONITOR" <<'PY'
import os, sys, time
sys.path.insert(0, os.environ["BENCH_LIB"])
from kafka_probe import EndOffsetProbe

(bootstrap, topic, out, expected, lines, first_len, timeout,
 result, pidfile, readyfile) = sys.argv[1:11]
expected, lines, first_len, timeout = int(expected), int(lines), int(first_len), float(timeout)

def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False

probe = EndOffsetProbe(bootstrap, topic)
if probe.end_offset() is None:
    sys.exit("probe: no answer from the broker at %s" % bootstrap)
open(readyfile, "w").close()

give_up = time.time() + 30
pid = None
while pid is None:
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
    except (OSError, ValueError):
        if time.time() > give_up:
            sys.exit("probe: no pid file %s" % pidfile)
        time.sleep(0.001)

res = {}
deadline = time.time() + timeout
last_off, size = -1, 0
while True:
    if "all_kafka" not in res:
        off = probe.end_offset()
        now = time.time()
        if off is not None:
            last_off = off
            if off > 0:
                res.setdefault("first_kafka", now)
            if off >= lines:
                res["all_kafka"] = now
    try:
        size = os.stat(out).st_size
    except FileNotFoundError:
        size = 0
    now = time.time()
    if size >= first_len:
        res.setdefault("first_out", now)
    if size >= expected:
        res["done"] = now
        res.setdefault("first_kafka", now)
        res.setdefault("all_kafka", now)
        break
    if not alive(pid):
        res["exited"] = now
        break
    if now > deadline:
        res["timeout"] = now
        break
    time.sleep(0.01 if ("first_kafka" not in res or "first_out" not in res) else 0.05)

res["last_offset"] = last_off
res["last_size"] = size
with open(result + ".tmp", "w") as f:
    for k, v in res.items():
        f.write("%s=%s\n" % (k, v))
os.rename(result + ".tmp", result)
PY

# ---------------------------------------------------------------------------------------------
# one pipeline run

write_files() { # DIR TOPIC: the worker and connector files (identical for both systems but for names)
  local dir=$1 topic=$2
  mkdir -p "$dir"
  cat >"$dir/worker.properties" <<PROPS
bootstrap.servers=$BOOTSTRAP
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
offset.storage.file.filename=$dir/connect.offsets
offset.flush.interval.ms=$OFFSET_FLUSH_MS
# Kafka Connect's REST server on an ephemeral port (connect-rs warns that it ignores this key).
listeners=http://127.0.0.1:0
PROPS
  cat >"$dir/file-source.properties" <<PROPS
name=bench-source-$topic
connector.class=FileStreamSource
tasks.max=1
file=$INPUT
topic=$topic
PROPS
  cat >"$dir/file-sink.properties" <<PROPS
name=bench-sink-$topic
connector.class=FileStreamSink
tasks.max=1
file=$dir/output.txt
topics=$topic
PROPS
}

create_topic() { # TOPIC
  TOPICS_TO_DELETE+=("$1")
  timeout 120 "$HARNESS" tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
    --create --topic "$1" --partitions 1 --replication-factor 1 >/dev/null \
    || die "could not create topic $1"
}

result_set() { echo "$2=$3" >>"$1"; } # FILE KEY VALUE

# run_pipeline KEY DIR CMD...: runs CMD in the background, measures, stops it; writes DIR/result
run_pipeline() {
  local key=$1 dir=$2; shift 2
  local topic res=$dir/result
  topic=$(sed -n 's/^topic=//p' "$dir/file-source.properties")
  : >"$res"
  result_set "$res" cmd "$(printf '%q ' "$@")"
  rm -f "$dir/probe.ready" "$dir/pid" "$dir/probe.result" "$dir/output.txt"

  BENCH_LIB=$REPO/bench python3 "$MONITOR" "$BOOTSTRAP" "$topic" "$dir/output.txt" "$EXPECTED_BYTES" "$LINES" \
    "$(head -n1 "$INPUT" | wc -c)" "$TIMEOUT" "$dir/probe.result" "$dir/pid" "$dir/probe.ready" \
    >"$dir/probe.log" 2>&1 &
  MON_PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [[ -f "$dir/probe.ready" ]] && break
    kill -0 "$MON_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [[ ! -f "$dir/probe.ready" ]]; then
    cat "$dir/probe.log" >&2 || true
    die "the probe did not connect to the broker at $BOOTSTRAP within 15 s"
  fi

  log "$key: running $(printf '%q ' "$@")"
  local t0=$EPOCHREALTIME
  "$@" >"$dir/process.log" 2>&1 &
  SYS_PID=$!
  echo "$SYS_PID" >"$dir/pid"

  local mrc=0
  wait "$MON_PID" || mrc=$?
  MON_PID=""
  [[ $mrc == 0 && -f "$dir/probe.result" ]] || { cat "$dir/probe.log" >&2 || true; die "$key: the probe failed (exit $mrc)"; }

  local hwm="" cpu_ticks=""
  if grep -q '^done=' "$dir/probe.result"; then
    hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SYS_PID/status" 2>/dev/null || true)
    # utime + stime (fields 14 and 15 of /proc/PID/stat, after the command name) in clock ticks
    cpu_ticks=$(sed 's/^.*) //' "/proc/$SYS_PID/stat" 2>/dev/null | awk '{print $12 + $13}' || true)
    stop_pid "$SYS_PID" 60
  elif grep -q '^timeout=' "$dir/probe.result"; then
    log "$key: the sink file did not reach $EXPECTED_BYTES bytes within ${TIMEOUT}s (BENCH_TIMEOUT): stopping it"
    stop_pid "$SYS_PID" 30
  fi
  local rc=0
  wait "$SYS_PID" || rc=$?
  SYS_PID=""
  result_set "$res" exit "$rc"
  result_set "$res" t0 "$t0"
  cat "$dir/probe.result" >>"$res"
  [[ -n "$hwm" ]] && result_set "$res" rss_kib "$hwm"
  [[ -n "$cpu_ticks" ]] && result_set "$res" cpu_s "$(awk -v t="$cpu_ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN{print t / hz}')"
  if grep -q '^done=' "$dir/probe.result"; then
    if cmp -s "$INPUT" "$dir/output.txt"; then
      result_set "$res" cmp identical
    else
      result_set "$res" cmp differs
      log "$key: OUTPUT DIFFERS from the input ($(cmp "$INPUT" "$dir/output.txt" 2>&1 | head -n1))"
    fi
    [[ "${BENCH_KEEP:-0}" == 1 ]] || rm -f "$dir/output.txt"
  else
    local why
    why=$(grep -v '^[[:space:]]*$' "$dir/process.log" | tail -n1 | cut -c1-300 || true)
    if grep -q '^exited=' "$dir/probe.result"; then
      result_set "$res" failed "exited with status $rc before the output was complete: $why"
    else
      result_set "$res" failed "timed out after ${TIMEOUT}s: $why"
    fi
    log "$key: failed (exit $rc); last lines of $dir/process.log:"
    tail -n 5 "$dir/process.log" | sed 's/^/    /' >&2 || true
  fi
}

STAMP=$RUN_ID
[[ -z "$CONNECT_RS_BUILD_ERROR" ]] || skipped connect-rs || die "$CONNECT_RS_BUILD_ERROR"
skipped connect-rs || [[ -x "$CONNECT_RS_BIN" ]] || die "no binary at target/release/connect-rs"

run_connect_rs() { # RUN_NUMBER auto|pre
  local dir=$RUN_DIR/connect-rs-$2-$1 topic=bench-rs-$2-$STAMP-$1
  write_files "$dir" "$topic"
  if [[ $2 == pre ]]; then create_topic "$topic"; else TOPICS_TO_DELETE+=("$topic"); fi
  run_pipeline "connect-rs $2 #$1" "$dir" "$CONNECT_RS_BIN" --log-level warn standalone \
    "$dir/worker.properties" "$dir/file-source.properties" "$dir/file-sink.properties"
}

run_kafka_connect() { # RUN_NUMBER auto|pre
  local dir=$RUN_DIR/kafka-connect-$2-$1 topic=bench-kc-$2-$STAMP-$1
  write_files "$dir" "$topic"
  if [[ $2 == pre ]]; then create_topic "$topic"; else TOPICS_TO_DELETE+=("$topic"); fi
  run_pipeline "kafka-connect $2 #$1" "$dir" java "${KC_HEAP[@]}" "${KC_JVM[@]}" \
    "-Dlog4j2.configurationFile=$KC_LOG4J" -cp "$LIBS_DIR/*" \
    org.apache.kafka.connect.cli.ConnectStandalone \
    "$dir/worker.properties" "$dir/file-source.properties" "$dir/file-sink.properties"
}

# The broker's ceiling: ProducerPerformance, run on a JIT-enabled JVM (not the harness's
# `tools`, whose C1-only, 256 MB, serial-GC JVM is tuned for short admin calls), once with the
# producer's default settings and once tuned for throughput.
run_producer_perf() { # RUN_NUMBER default|tuned
  local dir=$RUN_DIR/producer-perf-$2-$1 topic=bench-perf-$2-$STAMP-$1
  mkdir -p "$dir"
  : >"$dir/result"
  create_topic "$topic"
  local props=("bootstrap.servers=$BOOTSTRAP" acks=all)
  [[ $2 == tuned ]] && props+=(batch.size=1048576 linger.ms=20)
  local cmd=(java -Xms256m -Xmx1g "${KC_JVM[@]}" "-Dlog4j2.configurationFile=$KC_LOG4J" -cp "$HARNESS_LIBS/*"
    org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$LINES"
    --record-size "$LINE_BYTES" --throughput -1 --producer-props "${props[@]}")
  result_set "$dir/result" cmd "$(printf '%q ' "${cmd[@]}")"
  log "producer-perf $2 #$1: running $(printf '%q ' "${cmd[@]}")"
  local prc=0 summary
  timeout "$TIMEOUT" /usr/bin/time -f "cpu_s=%U %S" -o "$dir/time" "${cmd[@]}" >"$dir/process.log" 2>&1 || prc=$?
  summary=$(grep -E '^[0-9]+ records sent, [0-9.]+ records/sec' "$dir/process.log" | tail -n1 || true)
  if [[ $prc == 0 && -n "$summary" ]]; then
    result_set "$dir/result" summary "$summary"
    result_set "$dir/result" cpu_s "$(awk '/^cpu_s=/{sub("cpu_s=", ""); print $1 + $2}' "$dir/time")"
  else
    result_set "$dir/result" failed "ProducerPerformance exit $prc (log: $dir/process.log)"
    tail -n 5 "$dir/process.log" >&2 || true
  fi
}

[[ -x /usr/bin/time ]] || skipped perf || die "needs /usr/bin/time (apt-get install time)"

# A broker the harness just (re)started runs its first rounds with a cold JIT: on 2026-12-02
# connect-rs went 319,000 -> 598,000 records/s over five rounds on such a broker while
# ProducerPerformance, whose own cold JVM is its limit, barely moved. One unmeasured
# ProducerPerformance run (tuned) warms the broker for every system alike.
if [[ "${BENCH_WARMUP:-1}" != 0 ]] && ! skipped perf; then
  log "warming the broker up (not measured; BENCH_WARMUP=0 leaves it out)"
  run_producer_perf warmup tuned
fi

# Rounds alternate the systems so that all see the same background load on a shared machine.
for ((run = 1; run <= RUNS; run++)); do
  if ! skipped connect-rs; then
    run_connect_rs "$run" auto
    run_connect_rs "$run" pre
  fi
  if ! skipped kafka-connect; then
    run_kafka_connect "$run" auto
    [[ "${BENCH_KC_PRECREATED:-0}" == 1 ]] && run_kafka_connect "$run" pre
  fi
  if ! skipped perf; then
    run_producer_perf "$run" default
    run_producer_perf "$run" tuned
  fi
done

# ---------------------------------------------------------------------------------------------
# report

python3 - "$RUN_DIR" "$RUNS" "$LINES" "$KAFKA_VERSION" "$CONNECT_VERSION" "$INVOCATION" "$BOOTSTRAP" \
  "$(nproc)" "$SKIP" <<'PY' | tee "$RUN_DIR/report.txt"
import os, re, sys, statistics
run_dir, runs, lines, kver, kcver, invocation, bootstrap, ncpu, skip = sys.argv[1:10]
lines, runs = int(lines), int(runs)

def load(path):
    d = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    d[k] = v
    return d

def runs_of(name):
    return [load(os.path.join(run_dir, f"{name}-{n}", "result")) for n in range(1, runs + 1)
            if os.path.exists(os.path.join(run_dir, f"{name}-{n}", "result"))]

def pipeline_figures(d):
    if "done" not in d:
        return None
    t0, done = float(d["t0"]), float(d["done"])
    f = {"rps": lines / (done - t0), "wall": done - t0,
         "rps_kafka": lines / (float(d["all_kafka"]) - t0),
         "first_kafka": float(d["first_kafka"]) - t0,
         "first_out": float(d["first_out"]) - t0}
    if "rss_kib" in d:
        f["rss"] = int(d["rss_kib"]) / 1024
    if "cpu_s" in d:
        f["cpu_m"] = float(d["cpu_s"]) / lines * 1e6
    return f

def perf_figures(d):
    m = re.match(r"(\d+) records sent, ([0-9.]+) records/sec", d.get("summary", ""))
    if not m:
        return None
    f = {"rps": float(m.group(2))}
    if d.get("cpu_s"):
        f["cpu_m"] = float(d["cpu_s"]) / lines * 1e6
    return f

variants = [  # directory prefix, label, figures
    ("connect-rs-auto", "connect-rs, topic auto-created", pipeline_figures),
    ("connect-rs-pre", "connect-rs, topic pre-created", pipeline_figures),
    ("kafka-connect-auto", "Kafka Connect, topic auto-created", pipeline_figures),
    ("kafka-connect-pre", "Kafka Connect, topic pre-created", pipeline_figures),
    ("producer-perf-default", "ProducerPerformance, default settings", perf_figures),
    ("producer-perf-tuned", "ProducerPerformance, batch.size=1048576 linger.ms=20", perf_figures),
]
data, failures = {}, []
for key, label, fig in variants:
    rl = runs_of(key)
    if not rl:
        continue
    fl = []
    for n, d in enumerate(rl, 1):
        f = fig(d)
        if f is None:
            failures.append(f"{label} run {n}: {d.get('failed', 'no result')}")
        else:
            fl.append(f)
        if d.get("cmp") == "differs":
            failures.append(f"{label} run {n}: the output differs from the input")
    data[key] = (label, fl, rl)

def med(key, fig):
    vals = [f[fig] for f in data.get(key, (None, [], None))[1] if fig in f]
    return statistics.median(vals) if vals else None

def mm(key, fig, fmt):
    vals = [f[fig] for f in data.get(key, (None, [], None))[1] if fig in f]
    if not vals:
        return "n/a"
    return f"{fmt.format(statistics.median(vals))} ({fmt.format(min(vals))} – {fmt.format(max(vals))})"

print()
print(f"{lines:,} lines of 100 bytes, FileStreamSource -> Kafka {kver} ({bootstrap}) -> FileStreamSink, StringConverter;")
print(f"{ncpu} cores; median (min – max) of {runs} rounds that alternate the systems.")
print()
print("| system | records/s, start → all lines in the sink | records/s, start → all in Kafka | CPU s per M records | peak RSS MiB | start → first record in Kafka, s | start → first line in the sink, s |")
print("|---|---|---|---|---|---|---|")
for key, _, fig in variants:
    if key not in data:
        continue
    label = data[key][0]
    if fig is perf_figures:
        print(f"| {label} | | {mm(key, 'rps', '{:,.0f}')} | {mm(key, 'cpu_m', '{:.2f}')} | | | |")
    else:
        print(f"| {label} | {mm(key, 'rps', '{:,.0f}')} | {mm(key, 'rps_kafka', '{:,.0f}')} | {mm(key, 'cpu_m', '{:.2f}')}"
              f" | {mm(key, 'rss', '{:.0f}')} | {mm(key, 'first_kafka', '{:.3f}')} | {mm(key, 'first_out', '{:.3f}')} |")
for key in ("connect-rs-auto", "connect-rs-pre", "kafka-connect-auto", "kafka-connect-pre"):
    if key in data:
        cmps = [d.get("cmp") for d in data[key][2]]
        ok = sum(1 for c in cmps if c == "identical")
        print(f"{data[key][0]}: output identical to the input (cmp) in {ok} of {len(cmps)} runs")

print()
print("Ratios of medians:")
def ratio(label, a, b, goal=""):
    if a is not None and b is not None and b > 0:
        print(f"  {label}: {a / b:.2f}{goal}")
ratio("records/s, connect-rs / Kafka Connect, topic auto-created", med("connect-rs-auto", "rps"), med("kafka-connect-auto", "rps"), " (goal ≥ 5)")
ratio("CPU s per M records, Kafka Connect / connect-rs, topic auto-created", med("kafka-connect-auto", "cpu_m"), med("connect-rs-auto", "cpu_m"), " (goal ≥ 5)")
ratio("records/s, connect-rs auto-created / pre-created topic", med("connect-rs-auto", "rps"), med("connect-rs-pre", "rps"), " (goal ≥ 0.90)")
ratio("records/s, connect-rs pre-created topic / ProducerPerformance default", med("connect-rs-pre", "rps"), med("producer-perf-default", "rps"), " (goal ≥ 2)")
ratio("records/s, connect-rs pre-created topic / ProducerPerformance tuned", med("connect-rs-pre", "rps"), med("producer-perf-tuned", "rps"))
ratio("peak RSS, Kafka Connect / connect-rs, topic auto-created", med("kafka-connect-auto", "rss"), med("connect-rs-auto", "rss"), " (goal ≥ 15)")
fk = med("connect-rs-pre", "first_kafka")
if fk is not None:
    print(f"  start → first record in Kafka, connect-rs, pre-created topic: {fk * 1000:.0f} ms (goal ≤ 150 ms)")
if skip.strip():
    print(f"Left out on request (BENCH_SKIP): {skip.strip()}")
print()
print("Times are from process start (fork) as seen by the script. 'First record in Kafka': the topic's end offset")
print("> 0, probed with ListOffsets every 10 ms; the sink file is polled every 10 ms until its first line, then 50 ms.")
print("CPU: user + system seconds of the process until the output was complete (ProducerPerformance: whole run).")
if kcver:
    note = "" if kcver == kver else f" (connect-file {kver} is not on Maven Central; its {kcver} clients talk to the {kver} broker)"
    print(f"Kafka Connect: Apache Kafka Connect {kcver} standalone worker{note}.")
print()
print("Command lines (round 1):")
print("  " + invocation)
for key, _, _ in variants:
    if key in data and data[key][2] and data[key][2][0].get("cmd"):
        print(f"  {data[key][0]}: {data[key][2][0]['cmd'].strip()}")
print(f"Worker and connector files, logs and results: {run_dir}/")
if failures:
    print()
    print("FAILED:")
    for f in failures:
        print("  " + f)
    sys.exit(1)
PY
