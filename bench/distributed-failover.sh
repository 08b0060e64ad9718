#!/usr/bin/env bash
# Fail-over benchmark of a worker cluster (issue 10): 3 distributed workers on the harness's Kafka
# broker run a FileStreamSource (1 task) and a FileStreamSink (tasks.max=6, 6-partition topic);
# one worker holding tasks is killed with SIGKILL, and the time until every task of both
# connectors is RUNNING again on the survivors (as GET /connectors/{c}/status of a survivor
# says, polled every 100 ms) is measured. Runs it RUNS times for connect-rs
# (`connect-rs distributed`) and for Apache Kafka Connect (`ConnectDistributed`, jars from Maven
# Central) and prints, per runtime, the median with min-max.
#
#   bash bench/distributed-failover.sh [RUNS]          (default 5)
#
# Both runtimes get the same worker file with their defaults for group membership
# (session.timeout.ms, heartbeat.interval.ms) and for scheduled.rebalance.max.delay.ms: Kafka
# Connect's default is 300000 (5 minutes: a lost worker's tasks wait that long for it to come
# back), connect-rs's is 0 (reassigned at once). So a Kafka Connect run takes 5 minutes or
# more. Environment:
#   RUNTIMES="connect-rs kafka-connect"   which runtimes to measure
#   REBALANCE_DELAY_MS=N                  set scheduled.rebalance.max.delay.ms for both
#   SESSION_TIMEOUT_MS=N                  set session.timeout.ms for both
#   MAX_WAIT_S=420                        give up on one run after this long
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
RUNS=${1:-5}
RUNTIMES=${RUNTIMES:-"connect-rs kafka-connect"}
MAX_WAIT_S=${MAX_WAIT_S:-420}
for tool in curl jq python3 java; do
  command -v "$tool" >/dev/null || { echo "distributed-failover: '$tool' is needed" >&2; exit 1; }
done

cargo build --release --quiet --bin connect-rs
BIN=$REPO/target/release/connect-rs
export KAFKA_HARNESS_LEASE=$$   # the broker stops after this script if it started it
BOOTSTRAP=$(bash scripts/kafka-harness.sh start | sed -n 's/^bootstrap=//p' | tail -1)
LIBS=$(bash scripts/kafka-connect-jars.sh | sed -n 's/^libs=//p')
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

tools() { # Kafka's own tool classes, from the harness
  bash scripts/kafka-harness.sh tools "$@"
}

python3 - "$WORK/in.txt" 200000 <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    for i in range(n):
        head = b"line-%010d-" % i
        f.write(head + b"x" * (99 - len(head)) + b"\n")
PY

# worker_file RUNTIME GROUP PORT DIR: the worker file both runtimes read.
worker_file() {
  local group=$2 port=$3 dir=$4
  cat > "$dir/worker.properties" <<PROPS
bootstrap.servers=$BOOTSTRAP
group.id=$group
config.storage.topic=$group-configs
config.storage.replication.factor=1
offset.storage.topic=$group-offsets
offset.storage.replication.factor=1
offset.storage.partitions=5
status.storage.topic=$group-status
status.storage.replication.factor=1
status.storage.partitions=1
listeners=http://127.0.0.1:$port
rest.advertised.host.name=127.0.0.1
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
PROPS
  if [[ -n "${REBALANCE_DELAY_MS:-}" ]]; then
    echo "scheduled.rebalance.max.delay.ms=$REBALANCE_DELAY_MS" >> "$dir/worker.properties"
  fi
  if [[ -n "${SESSION_TIMEOUT_MS:-}" ]]; then
    echo "session.timeout.ms=$SESSION_TIMEOUT_MS" >> "$dir/worker.properties"
  fi
}

# start_worker RUNTIME GROUP DIR -> prints "PID PORT"
start_worker() {
  local runtime=$1 group=$2 dir=$3 port pid
  mkdir -p "$dir"
  if [[ $runtime == connect-rs ]]; then
    worker_file "$runtime" "$group" 0 "$dir"
    (cd "$dir" && exec "$BIN" distributed "$dir/worker.properties" >/dev/null 2>"$dir/worker.log") &
    pid=$!
    for _ in $(seq 600); do
      port=$(grep -o 'REST API listening on http://127.0.0.1:[0-9]*' "$dir/worker.log" 2>/dev/null \
        | head -1 | sed 's/.*://') || true
      [[ -n "$port" ]] && break
      kill -0 "$pid" 2>/dev/null || { echo "connect-rs exited:" >&2; cat "$dir/worker.log" >&2; exit 1; }
      sleep 0.1
    done
  else
    port=$(free_port)
    worker_file "$runtime" "$group" "$port" "$dir"
    cat > "$dir/log4j2.properties" <<L4J
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $dir/worker.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
L4J
    (cd "$dir" && exec java -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "$LIBS/*" \
      org.apache.kafka.connect.cli.ConnectDistributed "$dir/worker.properties" \
      >"$dir/console.log" 2>&1) &
    pid=$!
  fi
  [[ -n "${port:-}" ]] || { echo "no REST port for a $runtime worker" >&2; exit 1; }
  for _ in $(seq 1800); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "$runtime worker exited:" >&2; tail -40 "$dir"/*.log >&2; exit 1; }
    sleep 0.1
  done
  echo "$pid $port"
}

# status_ok PORT VICTIM_ID: every task of src (1) and dst (6) RUNNING, none on VICTIM_ID.
status_ok() {
  local port=$1 victim=$2 c n
  for c in src:1 dst:6; do
    n=${c#*:}
    curl -sf --max-time 2 "http://127.0.0.1:$port/connectors/${c%%:*}/status" 2>/dev/null \
      | jq -e --arg v "$victim" --argjson n "$n" \
        '(.tasks | length) == $n and all(.tasks[]; .state == "RUNNING" and .worker_id != $v)' \
        >/dev/null 2>&1 || return 1
  done
}

post_connector() { # PORT JSON: asked again while the cluster answers "not now" (409/5xx)
  local out code
  for _ in $(seq 600); do
    out=$(curl -s -w '\n%{http_code}' -X POST -H 'Content-Type: application/json' \
      --data "$2" "http://127.0.0.1:$1/connectors" || true)
    code=${out##*$'\n'}
    [[ $code == 201 ]] && return 0
    [[ $code == 409 && $out == *"already exists"* ]] && return 0
    sleep 0.2
  done
  echo "POST /connectors failed: $out" >&2; exit 1
}

# one_run RUNTIME N -> prints seconds
one_run() {
  local runtime=$1 n=$2 group topic dir i pid port victim victim_port start end
  group="bench-failover-$$-$runtime-$n"
  topic="$group-lines"
  tools org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create \
    --topic "$topic" --partitions 6 --replication-factor 1 >/dev/null
  local pids=() ports=()
  for i in 0 1 2; do
    read -r pid port < <(start_worker "$runtime" "$group" "$WORK/$group/w$i")
    [[ -n "${pid:-}" && -n "${port:-}" ]] || { echo "$runtime: a worker did not start" >&2; exit 1; }
    pids+=("$pid"); ports+=("$port"); PIDS+=("$pid")
  done
  post_connector "${ports[0]}" "{\"name\":\"src\",\"config\":{\"connector.class\":\"FileStreamSource\",\"tasks.max\":\"1\",\"file\":\"$WORK/in.txt\",\"topic\":\"$topic\"}}"
  post_connector "${ports[0]}" "{\"name\":\"dst\",\"config\":{\"connector.class\":\"FileStreamSink\",\"tasks.max\":\"6\",\"file\":\"out.txt\",\"topics\":\"$topic\"}}"
  for _ in $(seq 1200); do status_ok "${ports[0]}" none && break; sleep 0.1; done
  status_ok "${ports[0]}" none || { echo "$runtime: the tasks never all ran" >&2; exit 1; }
  # The victim: the worker of dst's task 0 (it holds tasks by construction).
  victim=$(curl -sf "http://127.0.0.1:${ports[0]}/connectors/dst/status" | jq -r '.tasks[] | select(.id == 0) | .worker_id')
  victim_port=${victim##*:}
  local survivor
  for i in 0 1 2; do
    if [[ ${ports[$i]} == "$victim_port" ]]; then kill -9 "${pids[$i]}"; start=$(date +%s.%N); fi
  done
  for i in 0 1 2; do [[ ${ports[$i]} != "$victim_port" ]] && survivor=${ports[$i]} && break; done
  end=""
  local deadline=$(( $(date +%s) + MAX_WAIT_S ))
  while (( $(date +%s) < deadline )); do
    if status_ok "$survivor" "$victim"; then end=$(date +%s.%N); break; fi
    sleep 0.1
  done
  for i in 0 1 2; do kill -TERM "${pids[$i]}" 2>/dev/null || true; done
  for i in 0 1 2; do wait "${pids[$i]}" 2>/dev/null || true; done
  [[ -n "$end" ]] || { echo "$runtime run $n: tasks not RUNNING again within ${MAX_WAIT_S}s" >&2; echo "nan"; return; }
  python3 -c "print(f'{$end - $start:.2f}')"
}

echo "distributed-failover: $RUNS runs per runtime; broker $BOOTSTRAP; jars $LIBS"
echo "scheduled.rebalance.max.delay.ms: ${REBALANCE_DELAY_MS:-the defaults (Kafka Connect 300000, connect-rs 0)}"
for runtime in $RUNTIMES; do
  times=()
  for n in $(seq "$RUNS"); do
    t=$(one_run "$runtime" "$n")
    echo "  $runtime run $n: ${t} s"
    times+=("$t")
  done
  python3 - "$runtime" "${times[@]}" <<'PY'
import statistics, sys
runtime, times = sys.argv[1], [float(t) for t in sys.argv[2:] if t != "nan"]
failed = len(sys.argv[2:]) - len(times)
if times:
    print(f"{runtime:<14} SIGKILL -> all tasks RUNNING: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f} - max {max(times):.2f}, {len(times)} runs, {failed} timed out)")
else:
    print(f"{runtime:<14} no run completed ({failed} timed out)")
PY
done
