#!/usr/bin/env python3
"""Cost per connector on Kafka (issue 33), side by side with Apache Kafka Connect.

One standalone worker on the harness's broker (scripts/kafka-harness.sh), everything default
but the converters (StringConverter) and offset.flush.interval.ms=10000 (Kafka Connect's
FileStreamSink writes its buffer out at each flush; both workers get the same file):

  1. SOURCES FileStreamSource connectors (10 lines each, one topic the broker auto-creates),
     POSTed one after the other over one keep-alive connection; timed from the first and from
     the last POST until `GET /connectors?expand=status` shows every connector and task
     RUNNING; then, once every record is in the topic (its end offset) and 3 s later, the
     worker's VmRSS and thread count.
  2. SINKS FileStreamSink connectors reading that topic, each into its own file; once every
     file holds every line (checked line by line) and 3 s later, VmRSS and threads again.

Figures per connector are the RSS added over the phase divided by the connectors added.
ROUNDS rounds alternate the two workers; the report gives medians with min - max.

  python3 bench/many-connectors.py [--sources 1000] [--sinks 300] [--rounds 5]
                                   [--skip kafka-connect|connect-rs] [--no-build]

Kafka Connect runs from scripts/kafka-connect-jars.sh's jars (Maven Central) with the heap of
bench/kafka-side-by-side.sh (-Xms256m -Xmx1g). Any failed run makes the script exit 1 after
the report. The broker is left running (stop it with scripts/kafka-harness.sh stop); run files
stay in target/many-connectors-bench/RUN_ID/.
"""
import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_probe import EndOffsetProbe  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINES = 10
PHASE_TIMEOUT = 900


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.split()
    return int(fields["VmRSS"][0]), int(fields["Threads"][0])


class Rest:
    def __init__(self, port):
        self.port, self.conn = port, None

    def call(self, method, path, body=None):
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                data = json.dumps(body).encode() if body is not None else None
                headers = {"Content-Type": "application/json"} if data else {}
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                text = r.read()
                try:
                    return r.status, (json.loads(text) if text else None)
                except ValueError:  # e.g. Jetty's HTML page while Kafka Connect starts
                    return r.status, text.decode(errors="replace")
            except (OSError, http.client.HTTPException):
                if self.conn:
                    self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def wait(what, cond, timeout=PHASE_TIMEOUT, every=0.1, proc=None):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the worker exited ({proc.returncode}) while waiting for {what}")
        if cond():
            return time.monotonic()
        time.sleep(every)
    raise RuntimeError(f"timed out after {timeout}s waiting for {what}")


def all_running(rest, expected):
    try:
        status, body = rest.call("GET", "/connectors?expand=status")
    except OSError:
        return False
    if status != 200 or len(body) < expected:
        return False
    for c in body.values():
        s = c["status"]
        if s["connector"]["state"] != "RUNNING" or not s["tasks"]:
            return False
        if any(t["state"] != "RUNNING" for t in s["tasks"]):
            return False
    return True


def run_one(system, args, run_dir, bootstrap, libs):
    d = os.path.join(run_dir, system)
    os.makedirs(d)
    port = free_port()
    # The run id and round: a topic no earlier run wrote.
    topic = f"many-{os.path.basename(os.path.dirname(run_dir))}-{os.path.basename(run_dir)}-{system}"
    with open(f"{d}/worker.properties", "w") as f:
        f.write(
            f"bootstrap.servers={bootstrap}\nlisteners=http://127.0.0.1:{port}\n"
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
            "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
            f"offset.storage.file.filename={d}/offsets\noffset.flush.interval.ms=10000\n"
        )
    expected = []
    for i in range(args.sources):
        lines = [f"s{i:05d}-{j}" for j in range(LINES)]
        expected += lines
        with open(f"{d}/in-{i}.txt", "w") as f:
            f.write("\n".join(lines) + "\n")
    expected.sort()
    total_bytes = sum(len(x) + 1 for x in expected)
    if system == "connect-rs":
        cmd = [f"{REPO}/target/release/connect-rs", "--log-level", "warn", "standalone",
               f"{d}/worker.properties"]
    else:
        with open(f"{d}/log4j2.properties", "w") as f:
            f.write("status = warn\nappender.err.type = Console\nappender.err.name = E\n"
                    "appender.err.target = SYSTEM_ERR\nappender.err.layout.type = PatternLayout\n"
                    "appender.err.layout.pattern = [%d] %p %m (%c)%n\nrootLogger.level = WARN\n"
                    "rootLogger.appenderRef.err.ref = E\n")
        cmd = ["java", "-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
               "-XX:InitiatingHeapOccupancyPercent=35", "-Djava.awt.headless=true",
               f"-Dlog4j2.configurationFile={d}/log4j2.properties", "-cp", f"{libs}/*",
               "org.apache.kafka.connect.cli.ConnectStandalone", f"{d}/worker.properties"]
    logf = open(f"{d}/worker.log", "w")
    proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, cwd=d)
    res = {}
    try:
        rest = Rest(port)

        def up():
            try:
                status, body = rest.call("GET", "/")
                return status == 200 and isinstance(body, dict)
            except OSError:
                return False

        wait("the REST API", up, timeout=120, proc=proc)
        time.sleep(3)
        base_rss, base_threads = proc_status(proc.pid)
        first = time.monotonic()
        for i in range(args.sources):
            status, body = rest.call("POST", "/connectors", {"name": f"src-{i}", "config": {
                "connector.class": "FileStreamSource", "tasks.max": "1",
                "file": f"{d}/in-{i}.txt", "topic": topic}})
            if status != 201:
                raise RuntimeError(f"POST src-{i}: {status} {body}")
        last = time.monotonic()
        running = wait("every source RUNNING", lambda: all_running(rest, args.sources),
                       proc=proc)
        res["sources: first POST -> all RUNNING (s)"] = running - first
        res["sources: last POST -> all RUNNING (s)"] = running - last
        probe = EndOffsetProbe(bootstrap, topic)
        wait("every record in the topic",
             lambda: (probe.end_offset() or 0) >= args.sources * LINES, proc=proc)
        time.sleep(3)
        src_rss, src_threads = proc_status(proc.pid)
        res["RSS added per source (KiB)"] = (src_rss - base_rss) / args.sources
        res["threads after the sources"] = src_threads
        if args.sinks:
            first = time.monotonic()
            for i in range(args.sinks):
                status, body = rest.call("POST", "/connectors", {"name": f"dst-{i}", "config": {
                    "connector.class": "FileStreamSink", "tasks.max": "1",
                    "file": f"{d}/out-{i}.txt", "topics": topic}})
                if status != 201:
                    raise RuntimeError(f"POST dst-{i}: {status} {body}")

            def sizes_complete():
                return all(os.path.exists(f"{d}/out-{i}.txt")
                           and os.path.getsize(f"{d}/out-{i}.txt") >= total_bytes
                           for i in range(args.sinks))

            done = wait("every sink file complete", sizes_complete, every=0.5, proc=proc)
            res["sinks: first POST -> every file complete (s)"] = done - first
            time.sleep(3)
            sink_rss, sink_threads = proc_status(proc.pid)
            res["RSS added per sink (KiB)"] = (sink_rss - src_rss) / args.sinks
            res["threads added by the sinks"] = sink_threads - src_threads
            res["threads in all"] = sink_threads
            for i in range(args.sinks):
                with open(f"{d}/out-{i}.txt") as f:
                    got = sorted(f.read().splitlines())
                if got != expected:
                    raise RuntimeError(f"out-{i}.txt differs from the input lines")
        return res
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        logf.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=int, default=1000)
    ap.add_argument("--sinks", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    systems = [s for s in ("connect-rs", "kafka-connect") if s not in args.skip]
    if "connect-rs" in systems and not args.no_build:
        log("cargo build --release")
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
    libs = None
    if "kafka-connect" in systems:
        out = subprocess.run(["bash", f"{REPO}/scripts/kafka-connect-jars.sh"], check=True,
                             capture_output=True, text=True).stdout
        libs = next(line[5:] for line in out.splitlines() if line.startswith("libs="))
    out = subprocess.run(["bash", f"{REPO}/scripts/kafka-harness.sh", "start"], check=True,
                         capture_output=True, text=True).stdout
    bootstrap = [line[10:] for line in out.splitlines() if line.startswith("bootstrap=")][-1]
    run_id = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    results = {s: [] for s in systems}
    failures = []
    for r in range(args.rounds):
        for system in systems:
            run_dir = os.path.join(REPO, "target", "many-connectors-bench", run_id, f"r{r}")
            os.makedirs(run_dir, exist_ok=True)
            log(f"round {r + 1}/{args.rounds}: {system}")
            try:
                res = run_one(system, args, run_dir, bootstrap, libs)
                log(json.dumps(res))
                results[system].append(res)
            except Exception as e:  # noqa: BLE001 - reported, and the exit code says it
                failures.append(f"round {r + 1} {system}: {e}")
                log("FAILED:", e)
    print(f"\n{args.sources} sources, then {args.sinks} sinks, one standalone worker, one broker;"
          f" medians (min - max) of {args.rounds} alternating rounds\n")
    keys = [k for k in (results[systems[0]][0] if results[systems[0]] else {})]
    print("| figure | " + " | ".join(systems) + " |")
    print("|---|" + "---|" * len(systems))
    for k in keys:
        cells = []
        for s in systems:
            v = [x[k] for x in results[s] if k in x]
            cells.append(f"{statistics.median(v):.1f} ({min(v):.1f} - {max(v):.1f})" if v else "-")
        print(f"| {k} | " + " | ".join(cells) + " |")
    for f in failures:
        print("FAILED:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
