#!/usr/bin/env python3
"""Two connect-rs binaries side by side on the harness's broker: the 1M-line copy
FileStreamSource -> Kafka topic -> FileStreamSink (StringConverter, a fresh topic and group per
run, offset.flush.interval.ms=1000), ROUNDS alternating rounds.

  python3 bench/kafka-copy-ab.py BIN_A BIN_B [--lines 1000000] [--rounds 5]

Per run: seconds from process start until the sink file holds every input byte (polled every
20 ms), the process's peak RSS (VmHWM) and its most threads seen then; the output is checked
identical to the input. Prints medians (min - max) per binary and the ratio B/A of the medians.
The broker is started (or reused) with scripts/kafka-harness.sh and left running.
"""
import argparse
import filecmp
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.split()
    return int(fields["VmHWM"][0]), int(fields["Threads"][0])


def run(binary, bootstrap, input_path, size, tag):
    d = tempfile.mkdtemp(prefix="copy-ab-")
    topic = f"copy-ab-{tag}-{os.getpid()}"
    with open(f"{d}/w.properties", "w") as f:
        f.write(f"bootstrap.servers={bootstrap}\nlisteners=http://127.0.0.1:0\n"
                "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
                "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
                f"offset.storage.file.filename={d}/offsets\noffset.flush.interval.ms=1000\n")
    with open(f"{d}/s.properties", "w") as f:
        f.write(f"name=src-{topic}\nconnector.class=FileStreamSource\nfile={input_path}\ntopic={topic}\n")
    with open(f"{d}/k.properties", "w") as f:
        f.write(f"name=dst-{topic}\nconnector.class=FileStreamSink\nfile={d}/out.txt\ntopics={topic}\n")
    start = time.monotonic()
    p = subprocess.Popen([binary, "--log-level", "warn", "standalone", f"{d}/w.properties",
                          f"{d}/s.properties", f"{d}/k.properties"],
                         stdout=subprocess.DEVNULL, stderr=open(f"{d}/log", "w"))
    threads = 0
    try:
        while True:
            if p.poll() is not None:
                raise RuntimeError(f"{binary} exited with {p.returncode} (log {d}/log)")
            try:
                threads = max(threads, status(p.pid)[1])
                if os.path.getsize(f"{d}/out.txt") >= size:
                    break
            except FileNotFoundError:
                pass
            if time.monotonic() - start > 300:
                raise RuntimeError(f"{binary} timed out (log {d}/log)")
            time.sleep(0.02)
        secs = time.monotonic() - start
        hwm, _ = status(p.pid)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
    if not filecmp.cmp(input_path, f"{d}/out.txt", shallow=False):
        raise RuntimeError(f"{binary}: output differs from the input ({d})")
    return secs, hwm / 1024, threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    out = subprocess.run(["bash", f"{REPO}/scripts/kafka-harness.sh", "start"], check=True,
                         capture_output=True, text=True).stdout
    bootstrap = [line[10:] for line in out.splitlines() if line.startswith("bootstrap=")][-1]
    input_path = os.path.join(REPO, "target", f"copy-ab-input-{args.lines}.txt")
    if not os.path.exists(input_path):
        with open(input_path, "wb") as f:
            for i in range(args.lines):
                head = b"line-%010d-" % i
                f.write(head + b"x" * (99 - len(head)) + b"\n")
    size = os.path.getsize(input_path)
    res = {"A": [], "B": []}
    for r in range(args.rounds):
        for tag, binary in (("A", args.a), ("B", args.b)):
            secs, rss, threads = run(binary, bootstrap, input_path, size, f"{tag}{r}")
            print(f"round {r + 1} {tag}: {secs:.2f} s, peak RSS {rss:.1f} MiB, {threads} threads",
                  file=sys.stderr, flush=True)
            res[tag].append((secs, rss, threads))
    for i, name in enumerate(("seconds", "peak RSS MiB", "threads")):
        cells = []
        for tag in ("A", "B"):
            v = [x[i] for x in res[tag]]
            cells.append(f"{statistics.median(v):.2f} ({min(v):.2f} - {max(v):.2f})")
        ratio = statistics.median(x[i] for x in res["B"]) / statistics.median(x[i] for x in res["A"])
        print(f"| {name} | {cells[0]} | {cells[1]} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
