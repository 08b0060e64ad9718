#!/usr/bin/env bash
# Real database servers for connect-rs's JDBC tests: PostgreSQL and MariaDB from Debian's
# packages (installed with apt-get when missing and running as root), each with its own data
# directory under target/db-harness/KIND and a free loopback port. SQLite needs no server. Nothing
# stands in for a database: when a server cannot be installed or started, commands fail with the
# reason on stderr.
#
#   scripts/db-harness.sh start KIND     start (or reuse) KIND = postgres | mariadb; prints
#                                        host=, port=, user=, password=, database=, url= lines
#   scripts/db-harness.sh status KIND    exit 0 when it answers, 3 when not
#   scripts/db-harness.sh sql KIND DB SQL  run SQL in database DB with the server's own client
#                                        (psql / mariadb), rows printed tab-separated, no header
#   scripts/db-harness.sh stop [KIND]    stop the server(s) and their watchdogs, remove the data
#   scripts/db-harness.sh watchdog KIND  (internal) stop KIND once no lease holder lives
#
# Every server has a user `connect` (password `connect`, allowed everything: on PostgreSQL it is
# the initdb superuser, so it may use logical replication and create publications) and a database
# `connect`; PostgreSQL runs with wal_level=logical (for Debezium); tests create their own databases with `sql KIND connect "CREATE DATABASE ..."`.
#
# Environment:
#   DB_HARNESS_LEASE  space-separated pids that hold the server (tests pass their own pid and
#                     their parent cargo's): `start` records them and runs a watchdog that stops
#                     the server (like `stop`) as soon as no holder is alive. Without it, `start`
#                     pins the server: it runs until `stop`.
#   DB_HARNESS_DIR    harness folder (default <repo>/target/db-harness)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
HARNESS_DIR="${DB_HARNESS_DIR:-$REPO_DIR/target/db-harness}"
USER_NAME=connect
PASSWORD=connect
DATABASE=connect
START_TIMEOUT=60

die() { echo "db-harness: $*" >&2; exit 1; }
log() { echo "db-harness: $*" >&2; }

kind_dir() { echo "$HARNESS_DIR/$1"; }

# ---------------------------------------------------------------------------------------------
# installation

apt_install() { # PACKAGE...: Debian's packages, as root
  [[ "$(id -u)" == 0 ]] || die "$* missing and not root: install them with apt-get install $*"
  command -v apt-get >/dev/null || die "$* missing and no apt-get on this machine"
  log "installing $* from Debian's packages"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2; then
    apt-get update -qq >&2 || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2 || die "apt-get install $* failed"
  fi
}

pg_bin() { # the newest installed PostgreSQL's bin directory
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [[ -z "$d" || ! -x "$d/initdb" ]]; then
    apt_install postgresql postgresql-client
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  fi
  [[ -n "$d" && -x "$d/initdb" ]] || die "PostgreSQL's initdb not found after installing postgresql"
  echo "$d"
}

need_mariadb() {
  if ! command -v mariadbd >/dev/null && [[ ! -x /usr/sbin/mariadbd ]]; then
    apt_install mariadb-server mariadb-client
  fi
  [[ -x /usr/sbin/mariadbd ]] || die "mariadbd not found after installing mariadb-server"
  command -v mariadb >/dev/null || apt_install mariadb-client
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# PostgreSQL refuses to run as root: as root, its files and processes belong to `postgres`.
as_pg() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL

# Logical decoding for Debezium's PostgreSQL connector (pgoutput, one slot and one WAL sender per
# connector); harmless for the JDBC tests.
PG_REPLICATION_OPTS="-c wal_level=logical -c max_replication_slots=20 -c max_wal_senders=20"

pg_start() { # BASE [PORT]: PORT reuses the port of an instance being restarted
  local base="$1" bin port="${2:-}"
  bin="$(pg_bin)"
  if [[ ! -f "$base/data/PG_VERSION" ]]; then
    rm -rf "$base/data"
    mkdir -p "$base/data" "$base/sock"
    printf '%s\n' "$PASSWORD" >"$base/pwfile"
    if [[ "$(id -u)" == 0 ]]; then chown -R postgres: "$base/data" "$base/sock" "$base/pwfile"; fi
    as_pg "$bin/initdb" -D "$base/data" -U "$USER_NAME" --pwfile="$base/pwfile" \
      --auth=scram-sha-256 -E UTF8 --locale=C >"$base/initdb.log" 2>&1 \
      || die "initdb failed: $(tail -5 "$base/initdb.log")"
  fi
  [[ -n "$port" ]] || port="$(free_port)"
  touch "$base/server.log"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$base/server.log"
  as_pg "$bin/pg_ctl" -D "$base/data" -l "$base/server.log" -w -t "$START_TIMEOUT" \
    -o "-p $port -k $base/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off $PG_REPLICATION_OPTS" \
    start >&2 9>&- || die "PostgreSQL did not start: $(tail -20 "$base/server.log")"
  echo "$port" >"$base/port"
  if ! PGPASSWORD="$PASSWORD" "$bin/psql" -h 127.0.0.1 -p "$port" -U "$USER_NAME" -d postgres -Atqc \
      "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'" | grep -q 1; then
    PGPASSWORD="$PASSWORD" "$bin/psql" -h 127.0.0.1 -p "$port" -U "$USER_NAME" -d postgres -qc \
      "CREATE DATABASE $DATABASE" >&2
  fi
}

pg_stop() {
  local base="$1"
  [[ -f "$base/data/postmaster.pid" ]] || return 0
  as_pg "$(pg_bin)/pg_ctl" -D "$base/data" -m fast -w stop >&2 9>&- || true
}

pg_alive() {
  local base="$1"
  [[ -f "$base/port" ]] || return 1
  PGPASSWORD="$PASSWORD" "$(pg_bin)/psql" -h 127.0.0.1 -p "$(cat "$base/port")" -U "$USER_NAME" \
    -d postgres -Atqc "SELECT 1" >/dev/null 2>&1
}

# An instance started by an older harness without logical decoding is restarted once with it, on
# the same port and data (tests of other processes holding it see a short outage).
pg_ensure_logical() { # BASE
  local base="$1" level
  level="$(pg_sql "$base" postgres "SHOW wal_level")" || die "cannot read PostgreSQL's wal_level"
  [[ "$level" == logical ]] && return 0
  log "PostgreSQL runs with wal_level=$level: restarting it with wal_level=logical"
  pg_stop "$base"
  pg_start "$base" "$(cat "$base/port")"
  level="$(pg_sql "$base" postgres "SHOW wal_level")"
  [[ "$level" == logical ]] || die "PostgreSQL still runs with wal_level=$level after its restart"
}

pg_sql() { # BASE DB SQL
  PGPASSWORD="$PASSWORD" "$(pg_bin)/psql" -h 127.0.0.1 -p "$(cat "$1/port")" -U "$USER_NAME" \
    -d "$2" -v ON_ERROR_STOP=1 -AtqF $'\t' -c "$3"
}

# ---------------------------------------------------------------------------------------------
# MariaDB

my_client() { # BASE: the client on the server's socket, as its root
  local base="$1"; shift
  mariadb --no-defaults --socket="$base/mysqld.sock" -uroot "$@"
}

my_start() {
  local base="$1" port i
  need_mariadb
  local runas
  runas="$(id -un)"
  if [[ ! -d "$base/data/mysql" ]]; then
    rm -rf "$base/data"
    mkdir -p "$base/data"
    mariadb-install-db --no-defaults --datadir="$base/data" --user="$runas" \
      --auth-root-authentication-method=socket --skip-test-db >"$base/install.log" 2>&1 \
      || die "mariadb-install-db failed: $(tail -5 "$base/install.log")"
  fi
  port="$(free_port)"
  rm -f "$base/mysqld.sock"
  setsid nohup /usr/sbin/mariadbd --no-defaults --datadir="$base/data" --port="$port" \
    --bind-address=127.0.0.1 --socket="$base/mysqld.sock" --pid-file="$base/mysqld.pid" \
    --user="$runas" --skip-name-resolve --log-error="$base/server.log" \
    --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size=64M --character-set-server=utf8mb4 \
    </dev/null >/dev/null 2>&1 8>&- 9>&- &
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    if my_client "$base" -e "SELECT 1" >/dev/null 2>&1; then break; fi
    kill -0 "$!" 2>/dev/null || die "MariaDB exited at start: $(tail -20 "$base/server.log")"
    sleep 0.1
  done
  my_client "$base" -e "SELECT 1" >/dev/null 2>&1 || die "MariaDB did not answer in ${START_TIMEOUT}s"
  echo "$port" >"$base/port"
  my_client "$base" -e "CREATE USER IF NOT EXISTS '$USER_NAME'@'%' IDENTIFIED BY '$PASSWORD';
    GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'%' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS $DATABASE;" || die "could not create MariaDB's user $USER_NAME"
}

my_stop() {
  local base="$1" pid i
  pid="$(cat "$base/mysqld.pid" 2>/dev/null)" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

my_alive() { [[ -f "$1/port" ]] && my_client "$1" -e "SELECT 1" >/dev/null 2>&1; }

my_sql() { # BASE DB SQL
  mariadb --no-defaults -h 127.0.0.1 -P "$(cat "$1/port")" -u"$USER_NAME" -p"$PASSWORD" -N -B \
    -D "$2" -e "$3"
}

# ---------------------------------------------------------------------------------------------
# leases and the watchdog (as scripts/kafka-harness.sh)

start_time() { # PID -> the process's start time, empty when gone
  local stat rest f
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  rest="${stat##*) }"
  read -r -a f <<<"$rest"
  echo "${f[19]:-}"
}

take_lease() { # BASE: records $DB_HARNESS_LEASE
  local base="$1" pids=(${DB_HARNESS_LEASE:-}) pid t lines=""
  for pid in "${pids[@]}"; do
    [[ "$pid" =~ ^[0-9]+$ ]] || die "bad pid '$pid' in DB_HARNESS_LEASE"
    t="$(start_time "$pid")"
    [[ -n "$t" ]] && lines+="$pid $t"$'\n'
  done
  [[ -n "$lines" ]] || die "no process of DB_HARNESS_LEASE ($DB_HARNESS_LEASE) is running"
  mkdir -p "$base/leases"
  printf '%s' "$lines" >"$base/leases/${pids[0]}.tmp.$$"
  mv "$base/leases/${pids[0]}.tmp.$$" "$base/leases/${pids[0]}"
}

live_leases() { # BASE -> the number of leases with a live holder; removes dead ones
  local f pid t n=0 alive
  [[ -d "$1/leases" ]] || { echo 0; return; }
  for f in "$1/leases"/*; do
    [[ -f "$f" && "$f" != *.tmp.* ]] || continue
    alive=0
    while read -r pid t; do
      [[ -n "$t" && "$(start_time "$pid")" == "$t" ]] && { alive=1; break; }
    done <"$f"
    if (( alive )); then n=$((n + 1)); else rm -f "$f"; fi
  done
  echo "$n"
}

is_watchdog() { # BASE PID
  [[ -n "$2" ]] && kill -0 "$2" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$2/cmdline" 2>/dev/null | grep -qF "db-harness.sh watchdog $1 "
}

stop_watchdog() { # BASE
  local pid
  pid="$(cat "$1/watchdog.pid" 2>/dev/null)" || return 0
  if [[ "$pid" != "$$" ]] && is_watchdog "$1" "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
  rm -f "$1/watchdog.pid"
}

lock() { # BASE
  mkdir -p "$1"
  exec 9>"$1/lock"
  flock 9
}

server_stop() { # KIND BASE
  case "$1" in
    postgres) pg_stop "$2" ;;
    mariadb) my_stop "$2" ;;
  esac
  rm -rf "$2/data" "$2/port" "$2/leases" "$2/pinned"
}

cmd_watchdog() { # KIND BASE
  local kind="$1" base="$2"
  while :; do
    sleep 1
    [[ -f "$base/port" && ! -f "$base/pinned" ]] || exit 0
    [[ "$(live_leases "$base")" -gt 0 ]] && continue
    lock "$base"
    if [[ -f "$base/port" && ! -f "$base/pinned" && "$(live_leases "$base")" -eq 0 ]]; then
      log "$(date -u +%FT%TZ) watchdog: no lease holder of $kind is alive; stopping it"
      server_stop "$kind" "$base"
      rm -f "$base/watchdog.pid"
      exit 0
    fi
    flock -u 9
  done
}

# ---------------------------------------------------------------------------------------------
# commands

check_kind() {
  case "${1:-}" in
    postgres | mariadb) ;;
    *) die "expected KIND postgres or mariadb, got '${1:-}'" ;;
  esac
}

alive() { # KIND BASE
  case "$1" in
    postgres) pg_alive "$2" ;;
    mariadb) my_alive "$2" ;;
  esac
}

cmd_start() {
  local kind="$1" base
  check_kind "$kind"
  base="$(kind_dir "$kind")"
  lock "$base"
  if ! alive "$kind" "$base"; then
    server_stop "$kind" "$base" 2>/dev/null || true
    case "$kind" in
      postgres) pg_start "$base" ;;
      mariadb) my_start "$base" ;;
    esac
    log "$kind listening on 127.0.0.1:$(cat "$base/port")"
  elif [[ "$kind" == postgres ]]; then
    pg_ensure_logical "$base"
  fi
  if [[ -z "${DB_HARNESS_LEASE:-}" ]]; then
    touch "$base/pinned"
    stop_watchdog "$base"
  else
    take_lease "$base"
    if [[ ! -f "$base/pinned" ]] && ! is_watchdog "$base" "$(cat "$base/watchdog.pid" 2>/dev/null)"; then
      setsid nohup bash "$SCRIPT_DIR/db-harness.sh" watchdog "$kind" "$base" \
        </dev/null >>"$base/watchdog.log" 2>&1 8>&- 9>&- &
      echo "$!" >"$base/watchdog.pid"
    fi
  fi
  local port scheme
  port="$(cat "$base/port")"
  scheme="$([[ "$kind" == postgres ]] && echo postgresql || echo mariadb)"
  printf 'host=127.0.0.1\nport=%s\nuser=%s\npassword=%s\ndatabase=%s\nurl=jdbc:%s://127.0.0.1:%s/%s\n' \
    "$port" "$USER_NAME" "$PASSWORD" "$DATABASE" "$scheme" "$port" "$DATABASE"
}

cmd_stop() {
  local kinds=("$@") kind base
  [[ ${#kinds[@]} -gt 0 ]] || kinds=(postgres mariadb)
  for kind in "${kinds[@]}"; do
    check_kind "$kind"
    base="$(kind_dir "$kind")"
    [[ -d "$base" ]] || continue
    lock "$base"
    stop_watchdog "$base"
    server_stop "$kind" "$base"
    flock -u 9
  done
}

cmd_status() {
  check_kind "${1:-}"
  if alive "$1" "$(kind_dir "$1")"; then echo "$1 up on 127.0.0.1:$(cat "$(kind_dir "$1")/port")"; else exit 3; fi
}

cmd_sql() {
  [[ $# -eq 3 ]] || die "usage: db-harness.sh sql KIND DATABASE SQL"
  check_kind "$1"
  local base
  base="$(kind_dir "$1")"
  alive "$1" "$base" || die "$1 is not running (scripts/db-harness.sh start $1)"
  case "$1" in
    postgres) pg_sql "$base" "$2" "$3" ;;
    mariadb) my_sql "$base" "$2" "$3" ;;
  esac
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  sql) shift; cmd_sql "$@" ;;
  watchdog) shift; cmd_watchdog "$@" ;;
  *) die "usage: db-harness.sh start|status|sql|stop|watchdog KIND ..." ;;
esac
