#!/usr/bin/env bash
# A real Apache Kafka broker (KRaft, single node: broker + controller) for connect-rs tests.
# Kafka comes from Maven Central through the machine's Maven; it runs on the machine's Java (17+).
# Nothing else stands in for Kafka: when Java, Maven or the download is missing, commands fail
# (non-zero exit, a message on stderr saying what is missing).
#
#   scripts/kafka-harness.sh fetch      download Kafka jars into target/kafka-harness/libs (idempotent)
#   scripts/kafka-harness.sh start      start the broker, or reuse the running one; prints bootstrap=HOST:PORT
#   scripts/kafka-harness.sh status     print the state; exit 0 when the broker answers, 3 when not
#   scripts/kafka-harness.sh pause      SIGTERM the broker, keep its data and ports (an outage)
#   scripts/kafka-harness.sh resume     start it again on the same ports and data; prints bootstrap=...
#   scripts/kafka-harness.sh stop       stop the broker(s) and their watchdogs, remove state and data
#   scripts/kafka-harness.sh watchdog   (internal) stop the instance once no lease holder lives
#   scripts/kafka-harness.sh tools CLASS [ARGS...]
#                                       run a Kafka tool class (stdin/stdout/stderr passed through), e.g.
#                                       tools org.apache.kafka.tools.TopicCommand --bootstrap-server B --list
#
# Environment:
#   KAFKA_HARNESS_INSTANCE   broker instance name (default "default"; state in target/kafka-harness/,
#                            other names in target/kafka-harness/instances/NAME/). `stop` without it
#                            stops every instance.
#   KAFKA_HARNESS_START_TIMEOUT  seconds to wait for the broker to answer (default 90)
#   KAFKA_HARNESS_HEAP       broker heap (default 512m)
#   KAFKA_HARNESS_EXTRA_PROPS  extra server.properties lines, appended on a fresh start
#   KAFKA_HARNESS_SECURE     1 = also serve TLS and SASL listeners (fresh start): certificates made with
#                            keytool in <instance>/tls (a test CA, the broker's PKCS12 keystore, client
#                            truststores in PKCS12 and JKS, a client keystore, a second CA, and an
#                            expired broker certificate); listeners SSL (client certificate required),
#                            SASL_PLAINTEXT and SASL_SSL (PLAIN, SCRAM-SHA-512 and unsecured
#                            OAUTHBEARER; user alice) and EXPIRED (TLS with an expired certificate).
#                            The state file then also lists ssl=, sasl_plaintext=, sasl_ssl=,
#                            expired= (HOST:PORT), tls.dir=, tls.password=, sasl.user=, sasl.password=.
#   KAFKA_HARNESS_DIR        harness folder (default <repo>/target/kafka-harness)
#   KAFKA_HARNESS_LEASE      space-separated pids that hold the broker (tests pass their own pid and
#                            their parent cargo's): `start`/`resume` record them as a lease in
#                            <instance>/leases/ and run a watchdog beside the broker that stops the
#                            instance (like `stop`) as soon as no holder of any lease is alive. Without
#                            it, `start` pins the broker: it runs until `stop`, as before.
#
# Leases let the test binaries of one `cargo test` run share a broker (cargo's pid keeps it up between
# binaries) while nothing outlives the run.
set -euo pipefail

# The newest Apache Kafka 4.x that Maven Central serves here (checked: 4.4.0).
KAFKA_VERSION="4.4.0"
SCALA_VERSION="2.13"
LOG4J_VERSION="2.24.3"
SLF4J_VERSION="2.0.17"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
HARNESS_DIR="${KAFKA_HARNESS_DIR:-$REPO_DIR/target/kafka-harness}"
LIBS_DIR="$HARNESS_DIR/libs"
INSTANCE="${KAFKA_HARNESS_INSTANCE:-default}"
START_TIMEOUT="${KAFKA_HARNESS_START_TIMEOUT:-90}"
HEAP="${KAFKA_HARNESS_HEAP:-512m}"
TOOLS_LOG4J="$HARNESS_DIR/tools-log4j2.properties"

die() { echo "kafka-harness: $*" >&2; exit 1; }
log() { echo "kafka-harness: $*" >&2; }

[[ "$INSTANCE" =~ ^[A-Za-z0-9._-]+$ ]] || die "bad KAFKA_HARNESS_INSTANCE '$INSTANCE' (use letters, digits, . _ -)"

instance_dir() {
  if [[ "$1" == default ]]; then echo "$HARNESS_DIR"; else echo "$HARNESS_DIR/instances/$1"; fi
}
BASE="$(instance_dir "$INSTANCE")"
STATE="$BASE/state"
CONFIG="$BASE/server.properties"
DATA="$BASE/data"

need_java() {
  command -v java >/dev/null 2>&1 \
    || die "Java is missing: 'java' (17 or newer) is not on PATH; Apache Kafka $KAFKA_VERSION needs it (e.g. apt-get install openjdk-17-jre-headless)"
  local v
  v="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1)"
  if [[ -n "$v" && "${v%%.*}" =~ ^[0-9]+$ && "${v%%.*}" -lt 17 ]]; then
    die "Java $v is too old: Apache Kafka $KAFKA_VERSION needs Java 17 or newer"
  fi
}
need_mvn() {
  command -v mvn >/dev/null 2>&1 \
    || die "Maven is missing: 'mvn' is not on PATH; it downloads Apache Kafka $KAFKA_VERSION from Maven Central (e.g. apt-get install maven)"
}

# ---------------------------------------------------------------------------------------------
# fetch

fetch_locked() {
  [[ -f "$LIBS_DIR/.complete-$KAFKA_VERSION" ]] && return 0
  need_java
  need_mvn
  local pom="$HARNESS_DIR/pom.xml"
  cat >"$pom" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/kafka-harness.sh: the jars of Apache Kafka for the test harness. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>connect-rs</groupId>
  <artifactId>kafka-harness</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_$SCALA_VERSION</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <!-- Logging: slf4j 2 API bound to log4j2, so the broker logs to a file. -->
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>$SLF4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
POM
  local tmp="$LIBS_DIR.tmp.$$"
  rm -rf "$tmp"
  log "downloading Apache Kafka $KAFKA_VERSION (kafka_$SCALA_VERSION, kafka-tools) and dependencies from Maven Central into $LIBS_DIR"
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$tmp" >"$HARNESS_DIR/fetch.log" 2>&1; then
    rm -rf "$tmp"
    tail -n 30 "$HARNESS_DIR/fetch.log" >&2 || true
    die "download failed: Maven could not fetch org.apache.kafka:kafka_$SCALA_VERSION:$KAFKA_VERSION and org.apache.kafka:kafka-tools:$KAFKA_VERSION from Maven Central (full log: $HARNESS_DIR/fetch.log)"
  fi
  local j
  for j in "kafka_$SCALA_VERSION-$KAFKA_VERSION.jar" "kafka-tools-$KAFKA_VERSION.jar" "kafka-clients-$KAFKA_VERSION.jar" \
           "log4j-slf4j2-impl-$LOG4J_VERSION.jar" "slf4j-api-$SLF4J_VERSION.jar"; do
    [[ -f "$tmp/$j" ]] || { rm -rf "$tmp"; die "download failed: $j missing after Maven ran (log: $HARNESS_DIR/fetch.log)"; }
  done
  # Only one slf4j-api on the class path (Maven may also copy an older one).
  find "$tmp" -name 'slf4j-api-*.jar' ! -name "slf4j-api-$SLF4J_VERSION.jar" -delete
  rm -rf "$LIBS_DIR"
  mv "$tmp" "$LIBS_DIR"
  touch "$LIBS_DIR/.complete-$KAFKA_VERSION"
}

write_tools_log4j() {
  [[ -f "$TOOLS_LOG4J" ]] && return 0
  cat >"$TOOLS_LOG4J.tmp.$$" <<'L4J'
# Kafka command-line tools run by the harness: warnings and errors to stderr.
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
L4J
  mv "$TOOLS_LOG4J.tmp.$$" "$TOOLS_LOG4J"
}

cmd_fetch() {
  mkdir -p "$HARNESS_DIR"
  if [[ ! -f "$LIBS_DIR/.complete-$KAFKA_VERSION" ]]; then
    exec 8>"$HARNESS_DIR/fetch.lock"
    flock 8
    fetch_locked
    write_tools_log4j
    flock -u 8
    exec 8>&-
  fi
  write_tools_log4j
}

# ---------------------------------------------------------------------------------------------
# helpers

TOOL_JVM_OPTS=(-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true)

run_tool() { # CLASS ARGS... (fds 8 and 9 closed: a lock must never leak into a child)
  local class="$1"; shift
  java "${TOOL_JVM_OPTS[@]}" "-Dlog4j2.configurationFile=$TOOLS_LOG4J" -cp "$LIBS_DIR/*" "$class" "$@" 8>&- 9>&-
}

state_get() { # KEY -> value from the state file (empty if absent)
  [[ -f "$STATE" ]] || return 0
  sed -n "s/^$1=//p" "$STATE" | tail -n1
}

write_state() { # PID PAUSED
  local port cport
  port="$(sed -n 's/^# harness.port=//p' "$CONFIG")"
  cport="$(sed -n 's/^# harness.controller.port=//p' "$CONFIG")"
  cat >"$STATE.tmp.$$" <<ST
pid=$1
bootstrap=127.0.0.1:$port
controller=127.0.0.1:$cport
paused=$2
instance=$INSTANCE
kafka.version=$KAFKA_VERSION
config=$CONFIG
log=$BASE/logs/server.log
ST
  if grep -q '^# harness.ssl.port=' "$CONFIG"; then
    local l
    for l in ssl sasl_plaintext sasl_ssl expired; do
      echo "$l=127.0.0.1:$(sed -n "s/^# harness.$l.port=//p" "$CONFIG")" >>"$STATE.tmp.$$"
    done
    cat >>"$STATE.tmp.$$" <<ST
tls.dir=$TLS_DIR
tls.password=$TLS_PASSWORD
sasl.user=$SASL_USER
sasl.password=$SASL_PASSWORD
ST
  fi
  mv "$STATE.tmp.$$" "$STATE"
}

is_our_broker() { # PID: alive and running kafka.Kafka with this instance's config
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka.Kafka $CONFIG"
}

tcp_open() { # HOST:PORT
  local host="${1%:*}" port="${1##*:}"
  timeout 2 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

answers() { # BOOTSTRAP: 0 when a metadata request lists a live (unfenced) broker
  tcp_open "$1" || return 1
  if command -v python3 >/dev/null 2>&1; then
    # Metadata v1 over a plain socket: milliseconds, where Kafka's TopicCommand starts a JVM
    # (seconds on a loaded machine, once per test binary and per readiness poll).
    timeout 10 python3 - "$1" <<'PY' 2>/dev/null 8>&- 9>&-
import socket, struct, sys
host, port = sys.argv[1].rsplit(":", 1)
sock = socket.create_connection((host, int(port)), timeout=5)
client = b"kafka-harness"
# api_key 3 (Metadata), version 1, correlation id 1, client id; topics = null (all topics).
request = struct.pack(">hhih", 3, 1, 1, len(client)) + client + struct.pack(">i", -1)
sock.sendall(struct.pack(">i", len(request)) + request)
def read(n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            sys.exit(1)
        data += chunk
    return data
(size,) = struct.unpack(">i", read(4))
response = read(size)
# correlation id, then the live brokers' count: fenced brokers are not listed.
correlation, brokers = struct.unpack(">ii", response[:8])
sys.exit(0 if correlation == 1 and brokers >= 1 else 1)
PY
    return
  fi
  timeout 30 java "${TOOL_JVM_OPTS[@]}" "-Dlog4j2.configurationFile=$TOOLS_LOG4J" -cp "$LIBS_DIR/*" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$1" --list >/dev/null 2>&1 8>&- 9>&-
}

free_ports() { # N -> prints N free TCP ports on 127.0.0.1
  local n="$1"
  if command -v python3 >/dev/null 2>&1 && python3 - "$n" <<'PY' 2>/dev/null; then return 0; fi
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
  local ports=() p
  while [[ ${#ports[@]} -lt $n ]]; do
    p=$((20000 + RANDOM % 40000))
    [[ " ${ports[*]:-} " == *" $p "* ]] && continue
    tcp_open "127.0.0.1:$p" || ports+=("$p")
  done
  echo "${ports[@]}"
}

new_cluster_id() { # 16 random bytes, base64url without padding (Kafka's Uuid form), not starting with '-'
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && { echo "$id"; return; }
  done
}

write_config() { # PORT CONTROLLER_PORT
  mkdir -p "$BASE/logs"
  cat >"$CONFIG" <<CFG
# Generated by scripts/kafka-harness.sh (instance $INSTANCE, Apache Kafka $KAFKA_VERSION)
# harness.port=$1
# harness.controller.port=$2
process.roles=broker,controller
node.id=1
listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2
advertised.listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.bootstrap.servers=127.0.0.1:$2
log.dirs=$DATA
num.partitions=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.flush.interval.messages=9223372036854775807
CFG
  if [[ $# -ge 6 ]]; then
    secure_config "$@" >>"$CONFIG"
  fi
  if [[ -n "${KAFKA_HARNESS_EXTRA_PROPS:-}" ]]; then
    printf '%s\n' "$KAFKA_HARNESS_EXTRA_PROPS" >>"$CONFIG"
  fi
  cat >"$BASE/log4j2.properties" <<L4J
# Broker log of the harness (instance $INSTANCE)
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $BASE/logs/server.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.kafka.name = org.apache.kafka
logger.kafka.level = INFO
logger.request.name = kafka.request.logger
logger.request.level = WARN
L4J
}

# ---------------------------------------------------------------------------------------------
# secure listeners (KAFKA_HARNESS_SECURE=1)

TLS_DIR="$BASE/tls"
TLS_PASSWORD="harness-store-pw-5e1d"
SASL_USER="alice"
SASL_PASSWORD="alice-s3cret-9b7c"

keytool_q() { keytool "$@" >/dev/null 2>"$TLS_DIR/keytool.err" 8>&- 9>&- \
  || { cat "$TLS_DIR/keytool.err" >&2; die "keytool $1 failed while making the test certificates"; }; }

# A key pair signed by a CA: NAME CA_NAME [keytool -gencert options...] -> NAME.p12 (key, chain)
signed_keystore() {
  local name="$1" ca="$2"; shift 2
  local pw="$TLS_PASSWORD" dir="$TLS_DIR"
  keytool_q -genkeypair -alias "$name" -dname "CN=localhost" -keyalg RSA -keysize 2048 -validity 3650 \
    -keystore "$dir/$name.p12" -storetype PKCS12 -storepass "$pw"
  keytool_q -certreq -alias "$name" -keystore "$dir/$name.p12" -storepass "$pw" -file "$dir/$name.csr"
  keytool_q -gencert -alias "$ca" -keystore "$dir/$ca.p12" -storepass "$pw" -infile "$dir/$name.csr" \
    -outfile "$dir/$name.crt" -rfc -ext "SAN=dns:localhost,ip:127.0.0.1" "$@"
  keytool_q -importcert -alias "$ca" -keystore "$dir/$name.p12" -storepass "$pw" -file "$dir/$ca.pem" -noprompt
  keytool_q -importcert -alias "$name" -keystore "$dir/$name.p12" -storepass "$pw" -file "$dir/$name.crt"
}

make_certs() { # the certificates of the secure listeners, as Kafka's documentation makes them
  command -v keytool >/dev/null 2>&1 || die "keytool (from the JDK) is missing; it makes the test certificates"
  rm -rf "$TLS_DIR"
  mkdir -p "$TLS_DIR"
  local pw="$TLS_PASSWORD" dir="$TLS_DIR" ca
  for ca in ca other-ca; do
    keytool_q -genkeypair -alias "$ca" -dname "CN=connect-rs test $ca" -keyalg RSA -keysize 2048 \
      -validity 3650 -ext bc:c -keystore "$dir/$ca.p12" -storetype PKCS12 -storepass "$pw"
    keytool_q -exportcert -alias "$ca" -keystore "$dir/$ca.p12" -storepass "$pw" -rfc -file "$dir/$ca.pem"
  done
  signed_keystore broker ca -validity 3650
  signed_keystore client ca -validity 3650
  # Valid from ten days ago for one day: expired.
  signed_keystore expired ca -startdate -10d -validity 1
  keytool_q -importcert -alias ca -file "$dir/ca.pem" -keystore "$dir/truststore.p12" -storetype PKCS12 \
    -storepass "$pw" -noprompt
  keytool_q -importcert -alias ca -file "$dir/ca.pem" -keystore "$dir/truststore.jks" -storetype JKS \
    -storepass "$pw" -noprompt
  keytool_q -importcert -alias other-ca -file "$dir/other-ca.pem" -keystore "$dir/other-truststore.p12" \
    -storetype PKCS12 -storepass "$pw" -noprompt
  rm -f "$dir"/*.csr "$dir/keytool.err"
}

secure_config() { # PORT CONTROLLER_PORT SSL SASL_PLAINTEXT SASL_SSL EXPIRED -> server.properties lines
  local dir="$TLS_DIR" pw="$TLS_PASSWORD" l
  cat <<CFG
# harness.ssl.port=$3
# harness.sasl_plaintext.port=$4
# harness.sasl_ssl.port=$5
# harness.expired.port=$6
listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2,SSL://127.0.0.1:$3,SASL_PLAINTEXT://127.0.0.1:$4,SASL_SSL://127.0.0.1:$5,EXPIRED://127.0.0.1:$6
advertised.listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2,SSL://127.0.0.1:$3,SASL_PLAINTEXT://127.0.0.1:$4,SASL_SSL://127.0.0.1:$5,EXPIRED://127.0.0.1:$6
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,EXPIRED:SSL
ssl.keystore.type=PKCS12
ssl.keystore.location=$dir/broker.p12
ssl.keystore.password=$pw
ssl.truststore.type=PKCS12
ssl.truststore.location=$dir/truststore.p12
ssl.truststore.password=$pw
listener.name.ssl.ssl.client.auth=required
listener.name.expired.ssl.keystore.type=PKCS12
listener.name.expired.ssl.keystore.location=$dir/expired.p12
listener.name.expired.ssl.keystore.password=$pw
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512,OAUTHBEARER
CFG
  for l in sasl_plaintext sasl_ssl; do
    cat <<CFG
listener.name.$l.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$SASL_PASSWORD";
listener.name.$l.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.$l.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="$SASL_USER";
CFG
  done
}

format_storage() {
  rm -rf "$DATA"
  mkdir -p "$DATA"
  local out
  local scram=()
  if grep -q '^# harness.ssl.port=' "$CONFIG"; then
    scram=(--add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]")
  fi
  if ! out="$(run_tool kafka.tools.StorageTool format --standalone -t "$(new_cluster_id)" -c "$CONFIG" "${scram[@]}" 2>&1)"; then
    echo "$out" >&2
    die "formatting KRaft storage in $DATA failed (kafka.tools.StorageTool)"
  fi
}

launch() { # start kafka.Kafka in the background, detached, on the current config
  mkdir -p "$BASE/logs"
  : >"$BASE/logs/stdout.log"
  setsid nohup java "-Xmx$HEAP" -Xms128m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      "-Dlog4j2.configurationFile=$BASE/log4j2.properties" "-Dkafka.logs.dir=$BASE/logs" \
      -cp "$LIBS_DIR/*" kafka.Kafka "$CONFIG" \
      </dev/null >>"$BASE/logs/stdout.log" 2>&1 8>&- 9>&- &
  local pid=$!
  write_state "$pid" 0
}

wait_ready() { # -> 0 when the broker answers; dies with the log tail otherwise
  local pid bootstrap deadline
  pid="$(state_get pid)"
  bootstrap="$(state_get bootstrap)"
  deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ! is_our_broker "$pid"; then
      log "the broker (pid $pid) exited during start-up; last lines of its logs:"
      tail -n 20 "$BASE/logs/stdout.log" >&2 || true
      grep -E ' (ERROR|FATAL) ' "$BASE/logs/server.log" 2>/dev/null | tail -n 20 >&2 || true
      return 1
    fi
    if tcp_open "$bootstrap" && answers "$bootstrap"; then
      return 0
    fi
    sleep 0.3
  done
  log "the broker did not answer on $bootstrap within ${START_TIMEOUT}s; last lines of $BASE/logs/server.log:"
  tail -n 20 "$BASE/logs/server.log" >&2 || true
  return 1
}

terminate() { # PID: SIGTERM, wait up to 60 s, then SIGKILL
  local pid="$1" i
  is_our_broker "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 600; i++)); do
    is_our_broker "$pid" || return 0
    sleep 0.1
  done
  log "broker pid $pid still running 60 s after SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}


# ---------------------------------------------------------------------------------------------
# leases and the watchdog

LEASES="$BASE/leases"
PINNED="$BASE/pinned"
WATCHDOG_PID="$BASE/watchdog.pid"
WATCHDOG_INTERVAL=1

start_time() { # PID -> the process's start time (field 22 of /proc/PID/stat), empty when gone
  local stat rest f
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  rest="${stat##*) }"
  read -r -a f <<<"$rest"
  echo "${f[19]:-}"
}

holder_alive() { # PID START_TIME: the same process is still running (pids get reused)
  [[ -n "$1" && -n "$2" && "$(start_time "$1")" == "$2" ]]
}

take_lease() { # records $KAFKA_HARNESS_LEASE as a lease (under the instance lock)
  local pids=(${KAFKA_HARNESS_LEASE:-}) pid t lines=""
  [[ ${#pids[@]} -gt 0 ]] || return 0
  for pid in "${pids[@]}"; do
    [[ "$pid" =~ ^[0-9]+$ ]] || die "bad pid '$pid' in KAFKA_HARNESS_LEASE"
    t="$(start_time "$pid")"
    [[ -n "$t" ]] && lines+="$pid $t"$'\n'
  done
  [[ -n "$lines" ]] || die "no process of KAFKA_HARNESS_LEASE ($KAFKA_HARNESS_LEASE) is running"
  mkdir -p "$LEASES"
  printf '%s' "$lines" >"$LEASES/${pids[0]}.tmp.$$"
  mv "$LEASES/${pids[0]}.tmp.$$" "$LEASES/${pids[0]}"
}

live_leases() { # prints the number of leases with a live holder; removes dead ones
  local f pid t n=0 alive
  [[ -d "$LEASES" ]] || { echo 0; return; }
  for f in "$LEASES"/*; do
    [[ -f "$f" && "$f" != *.tmp.* ]] || continue
    alive=0
    while read -r pid t; do
      if holder_alive "$pid" "$t"; then alive=1; break; fi
    done <"$f"
    if (( alive )); then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo "$n"
}

is_watchdog() { # PID: alive and this instance's watchdog
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka-harness.sh watchdog $BASE "
}

ensure_watchdog() { # under the instance lock: a leased, unpinned broker gets a watchdog
  [[ -n "${KAFKA_HARNESS_LEASE:-}" && ! -f "$PINNED" ]] || return 0
  is_watchdog "$(cat "$WATCHDOG_PID" 2>/dev/null)" && return 0
  mkdir -p "$BASE/logs"
  KAFKA_HARNESS_INSTANCE="$INSTANCE" KAFKA_HARNESS_DIR="$HARNESS_DIR" \
    setsid nohup bash "$SCRIPT_DIR/kafka-harness.sh" watchdog "$BASE" \
      </dev/null >>"$BASE/logs/watchdog.log" 2>&1 8>&- 9>&- &
  echo "$!" >"$WATCHDOG_PID"
}

stop_watchdog() { # under the instance lock, not from the watchdog itself
  local pid
  pid="$(cat "$WATCHDOG_PID" 2>/dev/null)" || return 0
  if [[ "$pid" != "$$" ]] && is_watchdog "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
  rm -f "$WATCHDOG_PID"
}

cmd_watchdog() { # runs detached beside the broker; exits when the instance is stopped or pinned
  log() { echo "kafka-harness: $(date -u +%Y-%m-%dT%H:%M:%SZ) $*" >&2; }
  log "watchdog $$ of instance $INSTANCE started"
  while :; do
    sleep "$WATCHDOG_INTERVAL"
    [[ -f "$STATE" && ! -f "$PINNED" ]] || { log "watchdog $$: instance stopped or pinned; exiting"; exit 0; }
    [[ "$(live_leases)" -gt 0 ]] && continue
    lock_instance
    # Checked again under the lock: a test may have just taken a lease.
    if [[ -f "$STATE" && ! -f "$PINNED" && "$(live_leases)" -eq 0 ]]; then
      log "watchdog $$: no lease holder of instance $INSTANCE is alive; stopping the broker"
      terminate "$(state_get pid)"
      rm -rf "$STATE" "$DATA" "$LEASES"
      rm -f "$WATCHDOG_PID"
      log "watchdog $$: broker stopped"
      exit 0
    fi
    flock -u 9
  done
}

lock_instance() {
  mkdir -p "$BASE"
  exec 9>"$BASE/lock"
  flock 9
}

print_bootstrap() { echo "bootstrap=$(state_get bootstrap)"; }

# ---------------------------------------------------------------------------------------------
# commands

# After a successful start or resume (under the lock): pin the broker, or lease it.
hold() {
  if [[ -z "${KAFKA_HARNESS_LEASE:-}" ]]; then
    touch "$PINNED"
    stop_watchdog
  else
    take_lease
    ensure_watchdog
  fi
}

cmd_start() {
  need_java
  cmd_fetch
  lock_instance
  local pid
  pid="$(state_get pid)"
  if [[ -f "$STATE" ]] && is_our_broker "$pid"; then
    if answers "$(state_get bootstrap)" || wait_ready; then
      hold
      print_bootstrap
      return 0
    fi
    log "the running broker (pid $pid) does not answer: restarting it from scratch"
    terminate "$pid"
  elif [[ -f "$STATE" && -f "$CONFIG" && -f "$DATA/meta.properties" ]]; then
    # Paused, or died: start again on the same ports and data.
    log "starting the broker again on its ports and data (instance $INSTANCE)"
    local t0=$SECONDS
    rm -f "$PINNED" # a new broker process: pinned again below only when started by hand
    launch
    if wait_ready; then
      log "broker ready in $((SECONDS - t0)) s"
      hold
      print_bootstrap
      return 0
    fi
    log "restart on the old ports and data failed: starting from scratch"
    terminate "$(state_get pid)"
  fi
  rm -f "$STATE" "$PINNED"
  local t0=$SECONDS ports
  if [[ "${KAFKA_HARNESS_SECURE:-0}" == 1 ]]; then
    ports="$(free_ports 6)"
    make_certs
  else
    ports="$(free_ports 2)"
  fi
  write_config ${ports}
  format_storage
  : >"$BASE/logs/server.log"
  launch
  if ! wait_ready; then
    terminate "$(state_get pid)"
    rm -f "$STATE"
    die "Apache Kafka $KAFKA_VERSION broker did not start (logs: $BASE/logs/)"
  fi
  log "broker ready in $((SECONDS - t0)) s (instance $INSTANCE, logs in $BASE/logs/)"
  hold
  print_bootstrap
}

cmd_pause() {
  lock_instance
  [[ -f "$STATE" ]] || die "no broker state for instance $INSTANCE: nothing to pause (run start first)"
  local pid
  pid="$(state_get pid)"
  terminate "$pid"
  write_state "" 1
  log "broker paused (instance $INSTANCE): $(state_get bootstrap) is down, data kept in $DATA"
}

cmd_resume() {
  need_java
  cmd_fetch
  lock_instance
  [[ -f "$STATE" && -f "$CONFIG" && -f "$DATA/meta.properties" ]] \
    || die "no paused broker for instance $INSTANCE (run start first)"
  local pid
  pid="$(state_get pid)"
  if ! is_our_broker "$pid"; then
    local t0=$SECONDS
    launch
    if ! wait_ready; then
      die "the broker did not start again on $(state_get bootstrap) (logs: $BASE/logs/)"
    fi
    log "broker resumed in $((SECONDS - t0)) s"
  elif ! wait_ready; then
    die "the broker (pid $pid) runs but does not answer on $(state_get bootstrap)"
  fi
  [[ -n "${KAFKA_HARNESS_LEASE:-}" ]] && { take_lease; ensure_watchdog; }
  print_bootstrap
}

stop_one() {
  lock_instance
  stop_watchdog
  if [[ -f "$STATE" ]]; then
    terminate "$(state_get pid)"
    log "broker stopped (instance $INSTANCE)"
  fi
  rm -rf "$STATE" "$DATA" "$LEASES" "$PINNED"
}

cmd_stop() {
  if [[ -n "${KAFKA_HARNESS_INSTANCE:-}" ]]; then
    stop_one
    return
  fi
  local names=(default) d
  if [[ -d "$HARNESS_DIR/instances" ]]; then
    for d in "$HARNESS_DIR"/instances/*/; do
      [[ -d "$d" ]] && names+=("$(basename "$d")")
    done
  fi
  for d in "${names[@]}"; do
    ( KAFKA_HARNESS_INSTANCE="$d" "$SCRIPT_DIR/kafka-harness.sh" stop ) || true
  done
}

cmd_status() {
  if [[ ! -f "$STATE" ]]; then
    echo "instance=$INSTANCE"
    echo "running=no"
    return 3
  fi
  cat "$STATE"
  if is_our_broker "$(state_get pid)" && tcp_open "$(state_get bootstrap)"; then
    echo "running=yes"
  else
    echo "running=no"
    return 3
  fi
}

cmd_tools() {
  [[ $# -ge 1 ]] || die "usage: $0 tools CLASS [ARGS...]"
  need_java
  cmd_fetch
  exec java "${TOOL_JVM_OPTS[@]}" "-Dlog4j2.configurationFile=$TOOLS_LOG4J" -cp "$LIBS_DIR/*" "$@"
}

usage() {
  sed -n '2,36s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
  fetch) cmd_fetch ;;
  start) cmd_start ;;
  status) cmd_status ;;
  pause) cmd_pause ;;
  resume) cmd_resume ;;
  stop) cmd_stop ;;
  watchdog) cmd_watchdog ;;
  tools) cmd_tools "$@" ;;
  *) usage ;;
esac
