#!/usr/bin/env python3
"""Side-by-side benchmark of a Java plugin (issue 28): Kafka's VerifiableSourceConnector at full
speed (`throughput=-1`) from `plugin.path`, run by connect-rs (its plugin host JVM) and by Apache
Kafka Connect's ConnectStandalone, on the broker of scripts/kafka-harness.sh.

    python3 bench/plugin-host.py [RECORDS]              (default 1000000)
    python3 bench/plugin-host.py --debezium [ROWS]      (default 1000000)

With --debezium, the plugin is Debezium's PostgreSQL connector instead: it snapshots a table of
ROWS rows (id, name, amount, created; made once per invocation in a database of its own on the
PostgreSQL of scripts/db-harness.sh, with wal_level=logical) into a fresh topic, each run with
its own replication slot (dropped after the run) and the shared publication; records/s is ROWS
over the time until the topic holds them all.

Rounds alternate the two systems (BENCH_RUNS, default 5); each run has a fresh topic (created by
the producer, the broker's auto.create.topics.enable), fresh offsets and a fresh connector name.
Per run:
  records/s   RECORDS / (time from process start until the topic's end offset reaches RECORDS),
              the end offset probed every 10 ms (bench/kafka_probe.py)
  peak RSS    VmHWM of the worker plus that of every process under it (connect-rs: its plugin
              host JVM), sampled when the records are in, before SIGTERM; a sum of peaks, so never
              below the peak of the sum
  CPU s / M   user + system CPU of the worker and its children (/proc/PID/stat) from start until
              the records are in, per million records
The worker files are the same but for plugin.host.classpath (connect-rs) and the class path of
Kafka Connect's JVM (its jars, kafka-server-common that VerifiableSourceTask needs, and the
Verifiable jars: Kafka never loads org.apache.kafka.connect.tools.* in isolation). Both log at
INFO (the task prints a JSON line per record to stdout: Kafka Connect's stdout goes to the run's
log file, connect-rs turns the host's lines into its own log lines).

Environment: BENCH_RUNS (5), BENCH_TIMEOUT (seconds per run, 300), BENCH_NO_BUILD=1 (use the
binary as is), KAFKA_CONNECT_HEAP_OPTS ("-Xms256m -Xmx1g"), KAFKA_CONNECT_JVM_OPTS (the G1 flags of
kafka-run-class.sh), KAFKA_HARNESS_* (scripts/kafka-harness.sh). Results and logs stay in
target/plugin-host-bench/RUN_ID/. A failed run makes the script exit 1 after the report.
"""

import os
import signal
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench"))
from kafka_probe import EndOffsetProbe  # noqa: E402

VERIFIABLE = "org.apache.kafka.connect.tools.VerifiableSourceConnector"
KC_JVM_DEFAULT = ("-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 "
                  "-XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def key_values(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def run_script(*cmd):
    out = subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True)
    return key_values(out.stdout)


def tree(pid):
    """pid and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def peak_rss_mib(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pids):
    ticks = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / CLK_TCK


def worker_file(path, bootstrap, run_dir, plugin_path, extra):
    with open(path, "w") as f:
        f.write(f"bootstrap.servers={bootstrap}\n"
                "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
                "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
                f"offset.storage.file.filename={run_dir}/connect.offsets\n"
                "offset.flush.interval.ms=10000\n"
                "listeners=http://127.0.0.1:0\n"
                f"plugin.path={plugin_path}\n{extra}")


def connector_file(path, topic):
    with open(path, "w") as f:
        f.write(f"name=bench-{topic}\nconnector.class={VERIFIABLE}\ntasks.max=1\n"
                f"topic={topic}\nthroughput=-1\nid=1\n")


DEBEZIUM = "io.debezium.connector.postgresql.PostgresConnector"


def db_sql(db, sql):
    out = subprocess.run(["bash", "scripts/db-harness.sh", "sql", "postgres", db, sql], cwd=REPO,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def debezium_table(stamp, rows):
    """A database of its own with table `bench` of `rows` rows and publication `bench_pub`."""
    pg = run_script("bash", "scripts/db-harness.sh", "start", "postgres")
    db = f"bench_dbz_{stamp.replace('-', '_')}"
    db_sql("connect", f"CREATE DATABASE {db}")
    db_sql(db, "CREATE TABLE bench (id bigint PRIMARY KEY, name text NOT NULL, "
               "amount numeric(12,2) NOT NULL, created timestamptz NOT NULL)")
    db_sql(db, "INSERT INTO bench SELECT i, 'name-' || i, (i % 100000) / 100.0, "
               f"timestamptz '2026-01-01' + i * interval '1 second' FROM generate_series(1, {rows}) i")
    db_sql(db, "CREATE PUBLICATION bench_pub FOR TABLE bench")
    log(f"debezium: database {db} with {rows} rows")
    return pg, db


def debezium_connector_file(path, pg, db, prefix):
    with open(path, "w") as f:
        f.write(f"name=bench-{prefix}\nconnector.class={DEBEZIUM}\ntasks.max=1\n"
                f"database.hostname={pg['host']}\ndatabase.port={pg['port']}\n"
                f"database.user={pg['user']}\ndatabase.password={pg['password']}\n"
                f"database.dbname={db}\ntopic.prefix={prefix}\nplugin.name=pgoutput\n"
                f"slot.name={prefix}\npublication.name=bench_pub\n"
                "publication.autocreate.mode=disabled\nsnapshot.mode=initial\n"
                "table.include.list=public.bench\n")


def drop_slot(db, slot):
    """Drops the run's replication slot (slots keep WAL), waiting for its connection to end."""
    for _ in range(600):
        active = db_sql(db, f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{slot}' "
                            "AND active")
        if active == "0":
            db_sql(db, f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                       f"WHERE slot_name = '{slot}'")
            return
        time.sleep(0.1)
    log(f"replication slot {slot} still in use after 60 s; left in place")


def measure(label, cmd, run_dir, bootstrap, topic, records, timeout):
    """Runs cmd until the topic holds `records` records; its figures, or its failure."""
    probe = EndOffsetProbe(bootstrap, topic)
    if probe.end_offset() is None:
        raise SystemExit(f"bench: no answer from the broker at {bootstrap}")
    log(f"{label}: {' '.join(cmd)}")
    with open(os.path.join(run_dir, "process.log"), "wb") as out:
        t0 = time.time()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=run_dir,
                                start_new_session=True)
    result = {}
    deadline = t0 + timeout
    try:
        while True:
            off = probe.end_offset()
            now = time.time()
            if off is not None and off >= records:
                pids = tree(proc.pid)
                result = {"rps": records / (now - t0), "rss": peak_rss_mib(pids),
                          "cpu": cpu_seconds(pids) / records * 1e6, "processes": len(pids)}
                break
            if proc.poll() is not None:
                result = {"failed": f"exited with {proc.returncode} at offset {off}"}
                break
            if now > deadline:
                result = {"failed": f"timed out at offset {off}"}
                break
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    log(f"{label}: {result}")
    return result


def fmt(values, spec):
    if not values:
        return "-"
    return f"{statistics.median(values):{spec}} ({min(values):{spec}} - {max(values):{spec}})"


def main():
    args = sys.argv[1:]
    debezium = "--debezium" in args
    args = [a for a in args if a != "--debezium"]
    records = int(args[0]) if args else 1_000_000
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    timeout = float(os.environ.get("BENCH_TIMEOUT", "300"))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    binary = os.path.join(target, "release", "connect-rs")
    if os.environ.get("BENCH_NO_BUILD") != "1":
        log("cargo build --release")
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
    bootstrap = run_script("bash", "scripts/kafka-harness.sh", "start")["bootstrap"]
    libs = run_script("bash", "scripts/kafka-connect-jars.sh")["libs"]
    jars = run_script("bash", "scripts/plugin-jars.sh")

    def jar_list(d):
        return [os.path.join(d, j) for j in sorted(os.listdir(d)) if j.endswith(".jar")]

    host_cp = ":".join(jar_list(jars["classpath"]))
    kc_cp = ":".join([f"{libs}/*"] + jar_list(jars["classpath"]) + jar_list(jars["verifiable"]))
    heap = os.environ.get("KAFKA_CONNECT_HEAP_OPTS", "-Xms256m -Xmx1g").split()
    jvm = os.environ.get("KAFKA_CONNECT_JVM_OPTS", KC_JVM_DEFAULT).split()
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    base = os.path.join(REPO, "target", "plugin-host-bench", stamp)
    os.makedirs(base)
    log4j = os.path.join(base, "log4j2.properties")
    with open(log4j, "w") as f:
        f.write("status = warn\nappender.out.type = Console\nappender.out.name = OUT\n"
                "appender.out.layout.type = PatternLayout\n"
                "appender.out.layout.pattern = [%d] %p %m (%c)%n\n"
                "rootLogger.level = INFO\nrootLogger.appenderRef.out.ref = OUT\n")

    if debezium:
        pg, db = debezium_table(stamp.replace("-", "_"), records)

    figures = {"connect-rs": [], "kafka-connect": []}
    failures = []
    for n in range(1, runs + 1):
        for system in ("connect-rs", "kafka-connect"):
            run_dir = os.path.join(base, f"{system}-{n}")
            os.makedirs(run_dir)
            worker = os.path.join(run_dir, "worker.properties")
            if debezium:
                prefix = f"bench_{'rs' if system == 'connect-rs' else 'kc'}_{n}_{os.getpid()}"
                topic = f"{prefix}.public.bench"
                conn = os.path.join(run_dir, "debezium.properties")
                debezium_connector_file(conn, pg, db, prefix)
            else:
                topic = f"bench-ph-{system}-{stamp}-{n}"
                conn = os.path.join(run_dir, "verifiable.properties")
                connector_file(conn, topic)
            if system == "connect-rs":
                worker_file(worker, bootstrap, run_dir, jars["plugin.path"],
                            f"plugin.host.classpath={host_cp}\n")
                cmd = [binary, "standalone", worker, conn]
            else:
                worker_file(worker, bootstrap, run_dir, jars["plugin.path"], "")
                cmd = (["java"] + heap + jvm + [f"-Dlog4j2.configurationFile={log4j}", "-cp",
                       kc_cp, "org.apache.kafka.connect.cli.ConnectStandalone", worker, conn])
            r = measure(f"{system} #{n}", cmd, run_dir, bootstrap, topic, records, timeout)
            if debezium:
                drop_slot(db, prefix)
            if "failed" in r:
                failures.append(f"{system} #{n}: {r['failed']} (log: {run_dir}/process.log)")
            else:
                figures[system].append(r)

    if debezium:
        db_sql("connect", f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
    what = "--debezium " if debezium else ""
    lines = [f"python3 bench/plugin-host.py {what}{records}  (BENCH_RUNS={runs}; {time.ctime()}; "
             f"broker {bootstrap}; {os.cpu_count()} CPUs)", "",
             "| system | records/s | peak RSS MiB (worker + children) | CPU s per M records |",
             "|---|---|---|---|"]
    for system, rs in figures.items():
        lines.append(f"| {system} | {fmt([r['rps'] for r in rs], ',.0f')} | "
                     f"{fmt([r['rss'] for r in rs], '.1f')} | {fmt([r['cpu'] for r in rs], '.2f')} |")
    ours, theirs = figures["connect-rs"], figures["kafka-connect"]
    if ours and theirs:
        med = lambda rs, k: statistics.median([r[k] for r in rs])  # noqa: E731
        lines.append("")
        lines.append("connect-rs / Kafka Connect (medians): records/s "
                     f"{med(ours, 'rps') / med(theirs, 'rps'):.2f}x, peak RSS "
                     f"{med(ours, 'rss') / med(theirs, 'rss'):.2f}x, CPU per record "
                     f"{med(ours, 'cpu') / med(theirs, 'cpu'):.2f}x")
    lines.extend(f"FAILED {f}" for f in failures)
    report = "\n".join(lines) + "\n"
    with open(os.path.join(base, "report.txt"), "w") as f:
        f.write(report)
    print(report)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
