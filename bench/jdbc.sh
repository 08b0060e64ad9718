#!/usr/bin/env bash
# JDBC connectors on PostgreSQL against psql's \copy as the floor: ROWS rows of
# (id bigint, n integer, txt text of ~50 characters, amount numeric(12,2), at timestamp).
#
#   bash bench/jdbc.sh [ROWS] [RUNS]     (defaults 1000000 and 5)
#   BIN=/path/to/connect-rs        that binary, no build
#   BIN_B=/path/to/other-build     also run the sink with a second binary, alternating with BIN in
#                                  every round (e.g. the build before a sink change)
#   PARTS=source|sink              only that half (default both)
#
# A throwaway PostgreSQL comes from scripts/db-harness.sh (its own folder under a temporary
# directory, leased to this script and stopped at exit). Every round runs, in this order:
#   source  \copy (SELECT * FROM src) TO file  (the floor), then JdbcSource mode=bulk and
#           mode=incrementing into the embedded log (JsonConverter, schemas.enable=true)
#   sink    \copy sink FROM file  (the floor), then JdbcSink insert.mode=insert and
#           insert.mode=upsert (pk.mode=record_value, pk.fields=id) from that topic into an empty
#           table with the same columns and primary key (per binary)
# so all variants see the same background load. Figures, median (min - max) of RUNS runs:
#   rows/s   ROWS / (wall time of the worker process - the --exit-when-idle window): from the
#            worker's start until it has seen every task idle (a source that returned nothing, a
#            sink consumed to the end of its topic after its last put) and flushed offsets, then
#            exited. Completion is then checked exactly: the topic's end offset (`connect-rs topics
#            list`) must be ROWS for a source run (so bulk mode did not run a second pass, and none
#            was cut short by a premature idle), and SELECT count(*) must be ROWS for a sink run.
#            Exit-when-idle is used instead of polling from outside so that nothing else competes
#            for the two cores while the worker runs.
#   CPU s    user + system seconds of the connect-rs process (/usr/bin/time), which a shared
#            machine's load moves less than wall time; for \copy, those of psql (the server's
#            work is not in it: the floors' CPU figures are the client's only)
# A missing tool, a database that does not start, a failed process or a wrong count ends the script
# with exit 1; nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}
RUNS=${2:-5}
[[ "$ROWS" =~ ^[1-9][0-9]*$ && "$RUNS" =~ ^[1-9][0-9]*$ ]] \
  || { echo "usage: bash bench/jdbc.sh [ROWS] [RUNS]" >&2; exit 2; }
for tool in python3 psql; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench: '$tool' is missing on PATH (psql: apt-get install postgresql-client)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin connect-rs
  BIN=$PWD/target/release/connect-rs
fi
for b in "$BIN" ${BIN_B:+"$BIN_B"}; do
  [ -x "$b" ] || { echo "bench: no executable at $b" >&2; exit 1; }
  "$b" plugins | grep -q JdbcSink || { echo "bench: $b has no JDBC connectors" >&2; exit 1; }
done
WORK=$(mktemp -d)
chmod 755 "$WORK"  # the harness runs PostgreSQL as its own user, inside this folder
export DB_HARNESS_DIR=$WORK/db-harness
cleanup() {
  bash scripts/db-harness.sh stop postgres >/dev/null 2>&1 || echo "bench: stopping PostgreSQL failed (folder $DB_HARNESS_DIR)" >&2
  rm -rf "$WORK"
}
trap cleanup EXIT
# Leased to this shell: the harness's watchdog also stops the server should this script be killed.
DB_HARNESS_LEASE=$$ bash scripts/db-harness.sh start postgres >"$WORK/db.env" \
  || { echo "bench: PostgreSQL did not start (scripts/db-harness.sh start postgres)" >&2; exit 1; }

PARTS=${PARTS:-source,sink}
[[ "$PARTS" =~ ^(source|sink|source,sink)$ ]] || { echo "bench: PARTS is source, sink or source,sink" >&2; exit 2; }

python3 - "$WORK" "$ROWS" "$RUNS" "$BIN" "${BIN_B:-}" "$PARTS" <<'PY'
import os, re, shutil, statistics, subprocess, sys, time

work, rows, runs, bin_a, bin_b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
parts = sys.argv[6].split(",")
IDLE_MS = 500
env = dict(l.split("=", 1) for l in open(os.path.join(work, "db.env")).read().split() if "=" in l)
host, port, user, password, database = (env[k] for k in ("host", "port", "user", "password", "database"))
url = f"jdbc:postgresql://{host}:{port}/{database}?user={user}&password={password}"
psql_env = dict(os.environ, PGPASSWORD=password)
PSQL = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", user, "-d", database]

def fail(msg):
    sys.exit("bench: " + msg)

def psql(sql, timed=False):
    """Runs sql; returns its output, or (output, wall s, CPU s of psql) when timed."""
    tfile = os.path.join(work, "psql.time")
    cmd = (["/usr/bin/time", "-f", "%U %S", "-o", tfile] if timed else []) + PSQL + ["-At", "-c", sql]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=psql_env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        fail(f"psql {sql!r}: exit {p.returncode}: {p.stderr[-2000:]}")
    if not timed:
        return p.stdout.strip()
    u, s = open(tfile).read().split()[-2:]
    return p.stdout.strip(), wall, float(u) + float(s)

COLS = "id bigint PRIMARY KEY, n integer NOT NULL, txt text NOT NULL, amount numeric(12,2) NOT NULL, at timestamp NOT NULL"
psql(f"DROP TABLE IF EXISTS src; CREATE TABLE src ({COLS})")
psql("INSERT INTO src SELECT i, ((i::bigint * 7919) % 1000003)::int, 'row ' || lpad(i::text, 10, '0') || ' ' || "
     f"repeat(chr(97 + (i % 26)), 35), ((i % 100000) * 1.37)::numeric(12,2), "
     f"timestamp '2024-01-01' + i * interval '1 second' FROM generate_series(1, {rows}) i; ANALYZE src")
psql(f"DROP TABLE IF EXISTS sink; CREATE TABLE sink ({COLS})")
copy_file = os.path.join(work, "src.copy")
psql(f"\\copy (SELECT * FROM src) TO '{copy_file}'")  # the sink floor's input

def worker_files(d, data_dir, connector):
    os.makedirs(d, exist_ok=True)
    wf = os.path.join(d, "worker.properties")
    with open(wf, "w") as f:
        f.write("key.converter=org.apache.kafka.connect.json.JsonConverter\n"
                "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
                "value.converter.schemas.enable=true\n"
                f"embedded.log.dir={data_dir}\nlisteners=http://127.0.0.1:0\n")
    cf = os.path.join(d, "connector.properties")
    with open(cf, "w") as f:
        f.write("".join(f"{k}={v}\n" for k, v in connector.items()))
    return wf, cf

def run_worker(binary, label, d, wf, cf):
    tfile = os.path.join(d, "time")
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", tfile, binary, "--log-level", "warn",
                        "standalone", "--quiet", f"--exit-when-idle={IDLE_MS}ms", wf, cf],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        fail(f"{label}: exit {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
    u, s = open(tfile).read().split()[-2:]
    busy = wall - IDLE_MS / 1000
    return {"rps": rows / busy, "busy": busy, "cpu": float(u) + float(s)}

def topic_end(binary, wf, topic):
    out = subprocess.run([binary, "--log-level", "warn", "topics", "--worker", wf, "list"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"topics list: exit {out.returncode}: {out.stderr[-2000:]}")
    total, seen = 0, False
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == topic:
            nums = [int(x) for x in f[1:] if re.fullmatch(r"\d+", x)]
            if not nums:
                fail(f"topics list: no end offset in {line!r}")
            total, seen = total + nums[-1], True
    if not seen:
        fail(f"topics list shows no topic {topic}: {out.stdout[-2000:]}")
    return total

def source_run(binary, mode, n, keep=None):
    label = f"source {mode} run {n}"
    d = os.path.join(work, f"src-{mode}-{n}")
    connector = {"name": f"src-{mode}", "connector.class": "JdbcSource", "connection.url": url,
                 "table.whitelist": "src", "topic.prefix": "pg-", "mode": mode,
                 "poll.interval.ms": "3600000"}
    if mode == "incrementing":
        connector["incrementing.column.name"] = "id"
    data = keep or os.path.join(d, "data")
    wf, cf = worker_files(d, data, connector)
    r = run_worker(binary, label, d, wf, cf)
    end = topic_end(binary, wf, "pg-src")
    if end != rows:
        fail(f"{label}: topic pg-src ends at offset {end}, not {rows}")
    if keep is None:
        shutil.rmtree(d)
    return r

def sink_run(binary, tag, mode, n, data):
    label = f"sink {tag} {mode} run {n}"
    d = os.path.join(work, f"sink-{tag}-{mode}-{n}")
    psql("TRUNCATE sink")
    connector = {"name": f"sink-{tag}-{mode}-{n}", "connector.class": "JdbcSink",
                 "connection.url": url, "topics": "pg-src", "table.name.format": "sink",
                 "insert.mode": mode, "pk.mode": "record_value", "pk.fields": "id"}
    wf, cf = worker_files(d, data, connector)
    r = run_worker(binary, label, d, wf, cf)
    count = int(psql("SELECT count(*) FROM sink"))
    if count != rows:
        fail(f"{label}: SELECT count(*) FROM sink is {count}, not {rows}")
    if n == 1:
        diff = psql("SELECT count(*) FROM (SELECT * FROM src EXCEPT SELECT * FROM sink) x")
        if diff != "0":
            fail(f"{label}: {diff} rows of src differ in sink")
    shutil.rmtree(d)
    return r

def copy_out(n):
    _, wall, cpu = psql(f"\\copy (SELECT * FROM src) TO '{copy_file}'", timed=True)
    return {"rps": rows / wall, "busy": wall, "cpu": cpu}

def copy_in(n):
    psql("TRUNCATE sink")
    _, wall, cpu = psql(f"\\copy sink FROM '{copy_file}'", timed=True)
    if int(psql("SELECT count(*) FROM sink")) != rows:
        fail("\\copy sink FROM file: wrong row count")
    return {"rps": rows / wall, "busy": wall, "cpu": cpu}

# The sink's input: one bulk copy of the table into an embedded log every sink run reads (each
# under a connector name of its own, so from the first offset).
sink_data = os.path.join(work, "sink-input", "data")
source_run(bin_a, "bulk", 0, keep=sink_data)
loads = [os.getloadavg()]
binaries = [("A", bin_a)] + ([("B", bin_b)] if bin_b else [])
res = {}
for n in range(1, runs + 1):
    if "source" in parts:
        res.setdefault("copy-out", []).append(copy_out(n))
        for mode in ("bulk", "incrementing"):
            res.setdefault(("source", mode), []).append(source_run(bin_a, mode, n))
    if "sink" in parts:
        res.setdefault("copy-in", []).append(copy_in(n))
        for tag, b in (binaries if n % 2 else binaries[::-1]):
            for mode in ("insert", "upsert"):
                res.setdefault(("sink", tag, mode), []).append(sink_run(b, tag, mode, n, sink_data))
    loads.append(os.getloadavg())
    done = "; ".join(f"{' '.join(k) if isinstance(k, tuple) else k} {v[-1]['rps']:,.0f} rows/s "
                     f"{v[-1]['cpu']:.2f} CPU s" for k, v in res.items())
    print(f"round {n}/{runs} done, load average {loads[-1][0]:.2f}: {done}", file=sys.stderr, flush=True)

def mm(vals, fmt):
    return f"{fmt.format(statistics.median(vals))} ({fmt.format(min(vals))} – {fmt.format(max(vals))})"

def line(name, rl):
    print(f"| {name} | {mm([r['rps'] for r in rl], '{:,.0f}')} | {mm([r['busy'] for r in rl], '{:.2f}')}"
          f" | {mm([r['cpu'] for r in rl], '{:.2f}')} |")

print()
print(f"JDBC on PostgreSQL {psql('SHOW server_version')}: {rows:,} rows, {os.cpu_count()} cores, "
      f"median (min – max) of {runs} alternating runs; JsonConverter with schemas")
for tag, b in binaries:
    print(f"  {tag} = {b}")
print(f"  load average (1 min) at the start and after each round: {', '.join(f'{l[0]:.2f}' for l in loads)}")
print()
print("| variant | rows/s | seconds | CPU s (user+sys) |")
print("|---|---|---|---|")
if "source" in parts:
    line("source floor: psql \\copy (SELECT * FROM src) TO file", res["copy-out"])
    for mode in ("bulk", "incrementing"):
        line(f"JdbcSource mode={mode} → embedded topic", res[("source", mode)])
if "sink" in parts:
    line("sink floor: psql \\copy sink FROM file", res["copy-in"])
for tag, _ in binaries if "sink" in parts else []:
    for mode in ("insert", "upsert"):
        name = f"JdbcSink insert.mode={mode}" + (f" ({tag})" if bin_b else "")
        line(name, res[("sink", tag, mode)])
if bin_b and "sink" in parts:
    print()
    for mode in ("insert", "upsert"):
        a, b = res[("sink", "A", mode)], res[("sink", "B", mode)]
        print(f"A / B sink {mode}: rows/s {mm([x['rps'] / y['rps'] for x, y in zip(a, b)], '{:.2f}')}, "
              f"CPU s {mm([x['cpu'] / y['cpu'] for x, y in zip(a, b)], '{:.2f}')} (paired by round)")
PY
