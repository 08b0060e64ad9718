#!/usr/bin/env bash
# Property-based test of the REST API against its OpenAPI document (GET /openapi.json) with
# Schemathesis: every documented operation gets generated requests (valid and invalid), and
# every response is checked — no 5xx, and status code, content type and body as documented.
#
#   scripts/schemathesis.sh [EXTRA SCHEMATHESIS ARGS...]
#
# Builds target/release/connect-rs, installs Schemathesis (pinned) into
# target/schemathesis-venv, starts `connect-rs standalone` on a free 127.0.0.1 port with the
# embedded log and one FileStreamSource connector (`local-file-source`, the name the document's
# examples use) in a temp dir, runs Schemathesis, then stops the worker with SIGTERM.
# Fails (non-zero) when a check failed (any 5xx included), the worker crashed during the run,
# or it did not exit cleanly on SIGTERM.
#
# Environment:
#   SCHEMATHESIS_MAX_EXAMPLES  test cases per operation and phase (default 50)
#   SCHEMATHESIS_SEED          random seed (default: a fixed one, for reproducible runs)
#   SCHEMATHESIS_SKIP_BUILD=1  use the existing target/release/connect-rs
set -euo pipefail

SCHEMATHESIS_VERSION="4.32.5"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-50}"
SEED="${SCHEMATHESIS_SEED:-20240601}"
CHECKS="not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
VENV="$REPO_DIR/target/schemathesis-venv"
BIN="$REPO_DIR/target/release/connect-rs"

log() { echo "schemathesis.sh: $*" >&2; }
die() { log "$*"; exit 1; }

cd "$REPO_DIR"
if [[ "${SCHEMATHESIS_SKIP_BUILD:-}" != 1 ]]; then
  log "building connect-rs (release)"
  cargo build --release --bin connect-rs
fi
[[ -x "$BIN" ]] || die "$BIN is missing (cargo build --release)"

if [[ "$("$VENV/bin/schemathesis" --version 2>/dev/null || true)" != *"$SCHEMATHESIS_VERSION"* ]]; then
  log "installing schemathesis==$SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

WORK="$(mktemp -d)"
WORKER_PID=""
cleanup() {
  if [[ -n "$WORKER_PID" ]] && kill -0 "$WORKER_PID" 2>/dev/null; then
    kill -KILL "$WORKER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# A free port: bind port 0, read it back, release it.
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

cat >"$WORK/worker.properties" <<EOF
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
listeners=http://127.0.0.1:$PORT
embedded.log.dir=$WORK/data
EOF
printf 'alpha\nbeta\ngamma\n' >"$WORK/test.txt"
cat >"$WORK/local-file-source.properties" <<EOF
name=local-file-source
connector.class=FileStreamSource
tasks.max=1
file=$WORK/test.txt
topic=connect-test
EOF

log "starting $BIN standalone on http://127.0.0.1:$PORT (work dir $WORK)"
(cd "$WORK" && exec "$BIN" standalone worker.properties local-file-source.properties \
  </dev/null >"$WORK/worker.stdout" 2>"$WORK/worker.log") &
WORKER_PID=$!

ready=""
for _ in $(seq 1 600); do
  kill -0 "$WORKER_PID" 2>/dev/null || { cat "$WORK/worker.log" >&2; die "the worker exited during start-up"; }
  if python3 -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$PORT/health', timeout=1)" 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.1
done
[[ -n "$ready" ]] || { cat "$WORK/worker.log" >&2; die "the REST API did not answer on port $PORT within 60 s"; }

CMD=("$VENV/bin/schemathesis" run "http://127.0.0.1:$PORT/openapi.json"
  --checks "$CHECKS"
  --max-examples "$MAX_EXAMPLES"
  --seed "$SEED"
  --workers 1
  --request-timeout 30
  --no-color
  --suppress-health-check all
  --report junit --report-junit-path "$REPO_DIR/target/schemathesis-junit.xml"
  "$@")
echo "+ ${CMD[*]}"
set +e
"${CMD[@]}" 2>&1 | tee "$WORK/schemathesis.out"
st_status=${PIPESTATUS[0]}
set -e

failed=0
if ! kill -0 "$WORKER_PID" 2>/dev/null; then
  wait "$WORKER_PID" || true
  log "FAIL: the worker crashed during the run; its log:"
  tail -n 100 "$WORK/worker.log" >&2
  WORKER_PID=""
  failed=1
else
  kill -TERM "$WORKER_PID"
  set +e
  wait "$WORKER_PID"
  worker_status=$?
  set -e
  WORKER_PID=""
  if [[ "$worker_status" -ne 0 ]]; then
    log "FAIL: the worker exited with $worker_status on SIGTERM; its log:"
    tail -n 100 "$WORK/worker.log" >&2
    failed=1
  fi
fi
if grep -q -i -E "server error|5[0-9][0-9] (internal|service|bad gateway)" "$WORK/schemathesis.out"; then
  log "FAIL: the server answered 5xx (see 'Server error' above)"
  failed=1
fi
if grep -q -E "panicked" "$WORK/worker.log"; then
  log "FAIL: the worker panicked:"
  grep -A5 "panicked" "$WORK/worker.log" >&2
  failed=1
fi
if [[ "$st_status" -ne 0 ]]; then
  log "FAIL: schemathesis exited with $st_status (report: target/schemathesis-junit.xml)"
  failed=1
fi
[[ "$failed" -eq 0 ]] && log "OK: no 5xx, every response as documented, worker stopped cleanly"
exit "$failed"
