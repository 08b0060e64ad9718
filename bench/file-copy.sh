#!/usr/bin/env bash
# Whole-pipeline benchmark on the embedded log: LINES lines of 100 bytes,
# FileStreamSource -> embedded durable topic -> FileStreamSink, with StringConverter and with
# JsonConverter (schemas.enable=true), against `cat` + `sync` of the same file as the floor.
#
#   bash bench/file-copy.sh [LINES] [RUNS]     (defaults 1000000 and 5)
#   BIN=/path/to/connect-rs        that binary, no build
#   BIN_B=/path/to/other-build     also run a second binary, alternating with BIN in every round,
#                                  and report B / A per pair (e.g. a change against its parent)
#   WORKER_B='key=value ...'       extra worker settings for B only (BIN_B defaults to BIN then),
#                                  e.g. WORKER_B='embedded.log.exactly.once.source=false'
#
# Every round runs, in this order: cat + sync, then for each binary the String copy and the JSON
# copy; the rounds repeat RUNS times, so all variants see the same background load. Figures:
#   lines/s          LINES / (wall time of the whole process - the --exit-when-idle window):
#                    start-up, the copy and the shutdown; the window (200 ms) is what the
#                    worker waits to see that nothing more comes, and is not work
#   CPU s / M lines  user + system seconds of the process per million lines (steadier than wall
#                    time on a shared machine)
#   peak RSS         max resident set size of the process (/usr/bin/time %M)
#   x cat+sync       the variant's busy time / the time of `cat IN > OUT; sync OUT` in the same round
# Then the idle worker: the same two connectors on an empty input file; VmRSS 2 s after start.
# Every figure is the median of RUNS runs with min - max. Every output is compared with the input
# (`cmp`); a difference, a failed process or a missing tool ends the script with exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-1000000}
RUNS=${2:-5}
[[ "$LINES" =~ ^[1-9][0-9]*$ && "$RUNS" =~ ^[1-9][0-9]*$ ]] \
  || { echo "usage: bash bench/file-copy.sh [LINES] [RUNS]" >&2; exit 2; }
for tool in python3 cmp sync; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench: '$tool' is missing on PATH" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin connect-rs
  BIN=$PWD/target/release/connect-rs
fi
if [ -n "${WORKER_B:-}" ]; then BIN_B=${BIN_B:-$BIN}; fi
for b in "$BIN" ${BIN_B:+"$BIN_B"}; do
  [ -x "$b" ] || { echo "bench: no executable at $b" >&2; exit 1; }
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK" "$LINES" "$RUNS" "$BIN" "${BIN_B:-}" "${WORKER_B:-}" <<'PY'
import os, shutil, statistics, subprocess, sys, time

work, lines, runs, bin_a, bin_b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
worker_b = "".join(kv + "\n" for kv in sys.argv[6].split())
IDLE_MS = 200
src = os.path.join(work, "in.txt")
with open(src, "wb") as f:
    for i in range(lines):
        head = b"line-%010d-" % i
        f.write(head + b"x" * (99 - len(head)) + b"\n")
empty = os.path.join(work, "empty.txt")
open(empty, "wb").close()

binaries = [("A", bin_a)] + ([("B", bin_b)] if bin_b else [])
converters = [
    ("string", "org.apache.kafka.connect.storage.StringConverter", ""),
    ("json-schemas", "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable=true\n"),
]

def fail(msg):
    sys.exit("bench: " + msg)

def write_files(d, converter, extra, input_path, label=""):
    if label.startswith("B"):
        extra += worker_b
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "worker.properties"), "w") as f:
        f.write(f"key.converter={converter}\nvalue.converter={converter}\n{extra}"
                f"embedded.log.dir={d}/data\nlisteners=http://127.0.0.1:0\n")
    with open(os.path.join(d, "src.properties"), "w") as f:
        f.write(f"name=src\nconnector.class=FileStreamSource\nfile={input_path}\ntopic=lines\n")
    with open(os.path.join(d, "dst.properties"), "w") as f:
        f.write(f"name=dst\nconnector.class=FileStreamSink\nfile={d}/out.txt\ntopics=lines\n")
    return [os.path.join(d, n) for n in ("worker.properties", "src.properties", "dst.properties")]

def copy_run(binary, label, converter, extra, n):
    d = os.path.join(work, f"{label}-{n}")
    files = write_files(d, converter, extra, src, label)
    tfile = os.path.join(d, "time")
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", tfile, binary, "--log-level", "warn",
                        "standalone", f"--exit-when-idle={IDLE_MS}ms", *files],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        fail(f"{label} run {n}: exit {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
    if subprocess.run(["cmp", "-s", src, os.path.join(d, "out.txt")]).returncode != 0:
        fail(f"{label} run {n}: the output differs from the input")
    rss_kib, user, system = open(tfile).read().split()[-3:]
    shutil.rmtree(d)
    busy = wall - IDLE_MS / 1000
    return {"rps": lines / busy, "busy": busy, "cpu_m": (float(user) + float(system)) / lines * 1e6,
            "rss": int(rss_kib) / 1024}

def cat_sync_run(n):
    out = os.path.join(work, f"cat-{n}.txt")
    t0 = time.perf_counter()
    subprocess.run(f"cat '{src}' > '{out}' && sync '{out}'", shell=True, check=True)
    busy = time.perf_counter() - t0
    os.remove(out)
    return {"rps": lines / busy, "busy": busy}

def idle_rss(binary, label, n):
    d = os.path.join(work, f"idle-{label}-{n}")
    files = write_files(d, converters[0][1], "", empty, label)
    p = subprocess.Popen([binary, "--log-level", "warn", "standalone", *files],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(2)
    if p.poll() is not None:
        fail(f"idle worker {label} exited with {p.returncode}: {p.stderr.read().decode(errors='replace')[-2000:]}")
    rss = None
    with open(f"/proc/{p.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    p.terminate()
    if p.wait(timeout=30) not in (0, 143, -15):
        fail(f"idle worker {label} did not stop cleanly on SIGTERM (exit {p.returncode})")
    shutil.rmtree(d)
    return rss

results = {}  # (variant) -> list of dicts
for n in range(1, runs + 1):
    results.setdefault("cat+sync", []).append(cat_sync_run(n))
    floor = results["cat+sync"][-1]["busy"]
    for bl, binary in binaries:
        for label, conv, extra in converters:
            r = copy_run(binary, f"{bl}-{label}", conv, extra, n)
            r["x_cat"] = r["busy"] / floor
            results.setdefault((bl, label), []).append(r)
    print(f"round {n}/{runs} done", file=sys.stderr)
idle = {bl: [idle_rss(b, bl, n) for n in range(1, runs + 1)] for bl, b in binaries}

def mm(vals, fmt):
    return f"{fmt.format(statistics.median(vals))} ({fmt.format(min(vals))} – {fmt.format(max(vals))})"

print()
print(f"Embedded copy: {lines:,} lines of 100 bytes, {os.cpu_count()} cores, median (min – max) of {runs} alternating runs")
for bl, binary in binaries:
    print(f"  {bl} = {binary}" + (f" with {sys.argv[6]}" if bl == "B" and worker_b else ""))
print()
print(f"| variant | lines/s | CPU s per M lines | peak RSS MiB | time / cat+sync |")
print(f"|---|---|---|---|---|")
c = results["cat+sync"]
print(f"| cat + sync | {mm([r['rps'] for r in c], '{:,.0f}')} | | | 1 |")
for bl, _ in binaries:
    for label, _, _ in converters:
        rl = results[(bl, label)]
        name = label if len(binaries) == 1 else f"{bl} {label}"
        print(f"| {name} | {mm([r['rps'] for r in rl], '{:,.0f}')} | {mm([r['cpu_m'] for r in rl], '{:.2f}')}"
              f" | {mm([r['rss'] for r in rl], '{:.1f}')} | {mm([r['x_cat'] for r in rl], '{:.1f}')} |")
print()
for bl, _ in binaries:
    print(f"idle worker RSS {bl} (FileStreamSource + FileStreamSink on an empty file, 2 s after start): "
          f"{mm(idle[bl], '{:.1f}')} MiB")
if len(binaries) == 2:
    print()
    for label, _, _ in converters:
        a, b = results[("A", label)], results[("B", label)]
        speed = [rb["rps"] / ra["rps"] for ra, rb in zip(a, b)]
        cpu = [rb["cpu_m"] / ra["cpu_m"] for ra, rb in zip(a, b)]
        print(f"B / A {label}: lines/s {mm(speed, '{:.3f}')}, CPU per line {mm(cpu, '{:.3f}')} (paired by round)")
PY
