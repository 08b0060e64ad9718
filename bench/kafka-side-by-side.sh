#!/usr/bin/env bash
# Side-by-side benchmark against a real Apache Kafka broker: connect-rs versus Apache Kafka
# Connect's own standalone worker (org.apache.kafka.connect.cli.ConnectStandalone), both running
# FileStreamSource -> Kafka topic -> FileStreamSink with StringConverter, on the broker of
# scripts/kafka-harness.sh, plus the broker's raw ceiling from ProducerPerformance.
#
#   bash bench/kafka-side-by-side.sh [LINES]          (default 1000000 lines of 100 bytes)
#
# Per system (a fresh topic, fresh connector names = consumer group, fresh offsets file each):
#   records/s       LINES / (time from process start until the sink file holds every byte of
#                   the input); the file size is polled every 50 ms (10 ms until the first
#                   record is seen); then the process gets SIGTERM and the output is checked
#                   byte-identical to the input with `cmp`.
#   peak RSS        VmHWM of the process (/proc/PID/status), sampled when the output is
#                   complete, just before SIGTERM. For Kafka Connect that is the JVM's RSS.
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
# The Kafka Connect jars come from scripts/kafka-connect-jars.sh (Maven Central, once, into
# target/kafka-connect/libs/; 4.3.1 while connect-file 4.4.0 is not on Maven Central). All jars
# go on the class path; no plugin.path.
#
# Environment:
#   BENCH_RUNS             runs per system (default 1); the table shows medians, runs alternate
#   BENCH_SKIP             words among: connect-rs kafka-connect perf (skip those parts)
#   BENCH_NO_BUILD=1       do not run `cargo build --release` (use target/release/connect-rs as is)
#   BENCH_OFFSET_FLUSH_MS  offset.flush.interval.ms of the worker file (default 10000)
#   BENCH_TIMEOUT          seconds a pipeline may take before it counts as failed (default 300)
#   BENCH_KEEP=1           keep output files and the run's topics
#   BENCH_STRICT=1         exit 1 when connect-rs cannot run (default: print n/a, exit 0)
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
RUNS=${BENCH_RUNS:-1}
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
import os, socket, struct, sys, time

(bootstrap, topic, out, expected, lines, first_len, timeout,
 result, pidfile, readyfile) = sys.argv[1:11]
expected, lines, first_len, timeout = int(expected), int(lines), int(first_len), float(timeout)
host, port = bootstrap.rsplit(":", 1)

class Probe:
    """End offset of TOPIC partition 0 through ListOffsets v1 (timestamp -1: the high watermark)."""
    def __init__(self):
        self.sock, self.corr = None, 0
    def connect(self):
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def recvn(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("broker closed the connection")
            buf += chunk
        return buf
    def end_offset(self):
        """The end offset, 0 while the topic does not exist, None when the broker did not answer."""
        try:
            if self.sock is None:
                self.connect()
            self.corr += 1
            t, client = topic.encode(), b"connect-rs-bench-probe"
            req = struct.pack(">hhih", 2, 1, self.corr, len(client)) + client
            req += struct.pack(">ii", -1, 1) + struct.pack(">h", len(t)) + t + struct.pack(">iiq", 1, 0, -1)
            self.sock.sendall(struct.pack(">i", len(req)) + req)
            (n,) = struct.unpack(">i", self.recvn(4))
            r = self.recvn(n)
            corr, _topics = struct.unpack_from(">ii", r, 0)
            (tlen,) = struct.unpack_from(">h", r, 8)
            p = 10 + tlen + 4
            _part, err, _ts, off = struct.unpack_from(">ihqq", r, p)
            if corr != self.corr:
                raise EOFError("correlation id mismatch")
            return off if err == 0 else 0
        except (OSError, EOFError, struct.error):
            if self.sock is not None:
                self.sock.close()
            self.sock = None
            return None

def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False

probe = Probe()
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

  python3 "$MONITOR" "$BOOTSTRAP" "$topic" "$dir/output.txt" "$EXPECTED_BYTES" "$LINES" \
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

  local hwm=""
  if grep -q '^done=' "$dir/probe.result"; then
    hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SYS_PID/status" 2>/dev/null || true)
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
RS_GIVE_UP=""   # set when connect-rs cannot run at all (no build, or exits before any output)

run_connect_rs() { # RUN_NUMBER
  local dir=$RUN_DIR/connect-rs-$1 topic=bench-rs-$STAMP-$1
  write_files "$dir" "$topic"
  if [[ -n "$CONNECT_RS_BUILD_ERROR" ]]; then
    RS_GIVE_UP=$CONNECT_RS_BUILD_ERROR
  elif [[ ! -x "$CONNECT_RS_BIN" ]]; then
    RS_GIVE_UP="no binary at target/release/connect-rs"
  fi
  if [[ -n "$RS_GIVE_UP" ]]; then
    printf 'failed=%s\n' "$RS_GIVE_UP" >"$dir/result"
    return
  fi
  create_topic "$topic"
  run_pipeline "connect-rs #$1" "$dir" "$CONNECT_RS_BIN" --log-level warn standalone \
    "$dir/worker.properties" "$dir/file-source.properties" "$dir/file-sink.properties"
  # Exited before writing anything (e.g. exit 2, no Kafka support in this build): do not retry.
  if grep -q '^exited=' "$dir/result" && grep -q '^last_size=0$' "$dir/result"; then
    RS_GIVE_UP=$(sed -n 's/^failed=//p' "$dir/result")
  fi
}

run_kafka_connect() { # RUN_NUMBER
  local dir=$RUN_DIR/kafka-connect-$1 topic=bench-kc-$STAMP-$1
  write_files "$dir" "$topic"
  create_topic "$topic"
  run_pipeline "kafka-connect #$1" "$dir" java "${KC_HEAP[@]}" "${KC_JVM[@]}" \
    "-Dlog4j2.configurationFile=$KC_LOG4J" -cp "$LIBS_DIR/*" \
    org.apache.kafka.connect.cli.ConnectStandalone \
    "$dir/worker.properties" "$dir/file-source.properties" "$dir/file-sink.properties"
}

# The broker's ceiling: ProducerPerformance, run on a JIT-enabled JVM (not the harness's
# `tools`, whose C1-only, 256 MB, serial-GC JVM is tuned for short admin calls).
run_producer_perf() { # RUN_NUMBER
  local dir=$RUN_DIR/producer-perf-$1 topic=bench-perf-$STAMP-$1
  mkdir -p "$dir"
  : >"$dir/result"
  create_topic "$topic"
  local cmd=(java -Xms256m -Xmx1g "${KC_JVM[@]}" "-Dlog4j2.configurationFile=$KC_LOG4J" -cp "$HARNESS_LIBS/*"
    org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$LINES"
    --record-size "$LINE_BYTES" --throughput -1 --producer-props "bootstrap.servers=$BOOTSTRAP" acks=all)
  result_set "$dir/result" cmd "$(printf '%q ' "${cmd[@]}")"
  log "producer-perf #$1: running $(printf '%q ' "${cmd[@]}")"
  local prc=0 summary
  timeout "$TIMEOUT" "${cmd[@]}" >"$dir/process.log" 2>&1 || prc=$?
  summary=$(grep -E '^[0-9]+ records sent, [0-9.]+ records/sec' "$dir/process.log" | tail -n1 || true)
  if [[ $prc == 0 && -n "$summary" ]]; then
    result_set "$dir/result" summary "$summary"
  else
    result_set "$dir/result" failed "ProducerPerformance exit $prc (log: $dir/process.log)"
    tail -n 5 "$dir/process.log" >&2 || true
  fi
}

# Runs alternate (connect-rs, Kafka Connect, ProducerPerformance, then again) so that both
# systems see the same background load on a shared machine.
for ((run = 1; run <= RUNS; run++)); do
  skipped connect-rs || run_connect_rs "$run"
  skipped kafka-connect || run_kafka_connect "$run"
  skipped perf || run_producer_perf "$run"
done

# ---------------------------------------------------------------------------------------------
# report

python3 - "$RUN_DIR" "$RUNS" "$LINES" "$KAFKA_VERSION" "$CONNECT_VERSION" "$INVOCATION" "$BOOTSTRAP" \
  "$(nproc)" <<'PY' | tee "$RUN_DIR/report.txt"
import os, re, sys
import glob, statistics
run_dir, runs, lines, kver, kcver, invocation, bootstrap, ncpu = sys.argv[1:9]
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

def figures(d):
    if not d or "done" not in d:
        return {}
    t0, done = float(d["t0"]), float(d["done"])
    f = {"rps": lines / (done - t0), "wall": done - t0,
         "rps_kafka": lines / (float(d["all_kafka"]) - t0),
         "first_kafka": float(d["first_kafka"]) - t0,
         "first_out": float(d["first_out"]) - t0,
         "all_kafka": float(d["all_kafka"]) - t0}
    if done > float(d["first_kafka"]):
        f["steady"] = lines / (done - float(d["first_kafka"]))
    if "rss_kib" in d:
        f["rss"] = int(d["rss_kib"]) / 1024
    return f

def runs_of(name):
    out = []
    for n in range(1, runs + 1):
        path = os.path.join(run_dir, f"{name}-{n}", "result")
        if os.path.exists(path):
            out.append(load(path))
    return out

rs_runs, kc_runs, perf_runs = runs_of("connect-rs"), runs_of("kafka-connect"), runs_of("producer-perf")

def median_figures(rl):
    fl = [figures(d) for d in rl]
    fl = [f for f in fl if f]
    med = {}
    for k in {k for f in fl for k in f}:
        vals = [f[k] for f in fl if k in f]
        med[k] = statistics.median(vals)
    return med, fl

frs, frs_all = median_figures(rs_runs)
fkc, fkc_all = median_figures(kc_runs)

rows = [  # key, label, format
    ("rps", "records/s, start -> all lines in sink file", "{:,.0f}"),
    ("steady", "records/s, first record in Kafka -> all in sink", "{:,.0f}"),
    ("rps_kafka", "records/s, start -> all records in Kafka", "{:,.0f}"),
    ("wall", "s, start -> all lines in sink file", "{:.2f}"),
    ("rss", "peak RSS (VmHWM), MiB", "{:.1f}"),
    ("first_kafka", "s, start -> first record in Kafka", "{:.3f}"),
    ("first_out", "s, start -> first line in sink file", "{:.3f}"),
    ("all_kafka", "s, start -> all records in Kafka", "{:.2f}"),
]

def cell(f, k, fmt):
    return fmt.format(f[k]) if k in f else "n/a"

def cmp_cell(rl):
    if not rl or not any("cmp" in d for d in rl):
        return "n/a"
    ok = sum(1 for d in rl if d.get("cmp") == "identical")
    return "identical" if ok == len(rl) else f"{ok}/{len(rl)} identical"

w0, w = 50, 15
print()
print(f"Side by side: {lines:,} lines of 100 bytes, FileStreamSource -> Kafka {kver} ({bootstrap}) -> FileStreamSink,")
print(f"StringConverter, {ncpu} cores" + (f", median of {runs} runs each" if runs > 1 else ", one run each"))
print(f"{'':<{w0}}{'connect-rs':>{w}}{'Kafka Connect':>{w}}{'rs / KC':>{w}}")
for k, label, fmt in rows:
    ratio = "n/a"
    if k in frs and k in fkc and fkc[k] > 0:
        ratio = "{:.2f}x".format(frs[k] / fkc[k])
    print(f"{label:<{w0}}{cell(frs, k, fmt):>{w}}{cell(fkc, k, fmt):>{w}}{ratio:>{w}}")
print(f"{'output identical to input (cmp)':<{w0}}{cmp_cell(rs_runs):>{w}}{cmp_cell(kc_runs):>{w}}")

perf_rps, perf_mbs = [], []
for d in perf_runs:
    m = re.match(r"(\d+) records sent, ([0-9.]+) records/sec \(([0-9.]+) MB/sec\)", d.get("summary", ""))
    if m:
        perf_rps.append(float(m.group(2)))
        perf_mbs.append(float(m.group(3)))
print()
if perf_rps:
    extra = f"; runs: {', '.join(f'{v:,.0f}' for v in perf_rps)}" if len(perf_rps) > 1 else ""
    print(f"Broker ceiling, ProducerPerformance ({lines:,} x 100 B, acks=all): "
          f"{statistics.median(perf_rps):,.0f} records/s ({statistics.median(perf_mbs):.2f} MB/s){extra}")
else:
    why = next((d["failed"] for d in perf_runs if d.get("failed")), "skipped")
    print(f"Broker ceiling, ProducerPerformance: n/a ({why})")

if runs > 1:
    print()
    for name, fl in (("connect-rs", frs_all), ("Kafka Connect", fkc_all)):
        if fl:
            print(f"{name} per run: records/s " + ", ".join(f"{f['rps']:,.0f}" for f in fl)
                  + "; peak RSS MiB " + ", ".join(f"{f.get('rss', 0):.0f}" for f in fl)
                  + "; first record s " + ", ".join(f"{f['first_kafka']:.2f}" for f in fl))
print()
for name, rl in (("connect-rs", rs_runs), ("Kafka Connect", kc_runs)):
    fails = [d["failed"] for d in rl if d.get("failed")]
    if fails:
        print(f"{name}: n/a in {len(fails)} of {len(rl)} runs -- {fails[0]}")
for name, fl in (("connect-rs", frs_all), ("Kafka Connect", fkc_all)):
    lag = [f["wall"] - f["all_kafka"] for f in fl]
    if lag and max(lag) > 1.0:
        print(f"NOTE {name}: the sink file was complete only {max(lag):.1f} s after all records were in Kafka: the sink"
              " holds output until its next flush (offset.flush.interval.ms); compare 'start -> all records in Kafka'.")
print("Ratios are connect-rs / Kafka Connect (for records/s higher is better; for RSS and times lower is better).")
print("Times are from process start (fork) as seen by the script. 'First record in Kafka': the topic's end offset")
print("> 0, probed with ListOffsets every 10 ms; the sink file is polled every 10 ms until its first line, then 50 ms.")
if kcver:
    note = "" if kcver == kver else f" (connect-file {kver} is not on Maven Central; its {kcver} clients talk to the {kver} broker)"
    print(f"Kafka Connect: Apache Kafka Connect {kcver} standalone worker{note}.")
print()
print("Command lines (run 1):")
print("  " + invocation)
for name, rl in (("connect-rs", rs_runs), ("Kafka Connect", kc_runs), ("ProducerPerformance", perf_runs)):
    if rl and rl[0].get("cmd"):
        print(f"  {name}: {rl[0]['cmd'].strip()}")
print(f"Worker and connector files, logs and results: {run_dir}/")
PY

rc=0
for r in "$RUN_DIR"/connect-rs-*/result "$RUN_DIR"/kafka-connect-*/result; do
  [[ -f "$r" ]] || continue
  if grep -q '^cmp=differs' "$r"; then rc=1; fi
  if [[ "$r" == */kafka-connect-*/result ]] && grep -q '^failed=' "$r"; then rc=1; fi
  if [[ "${BENCH_STRICT:-0}" == 1 ]] && grep -q '^failed=' "$r"; then rc=1; fi
done
exit "$rc"
