#!/usr/bin/env bash
# Regenerates link/startup-order.txt: the functions of the connect-rs binary that a worker runs
# while it starts, serves REST, copies a few lines and idles, in the order lld places them at the
# front of .text (build.rs passes the file with --symbol-ordering-file). Kept together, they fill
# few pages; spread over the 20 MB of code, the kernel's 64 KiB fault-around made an idle worker
# map about half of the binary (docs/performance.md, "Idle RSS").
#
#   bash scripts/link-order.sh          build (cargo build --release), record, rewrite the file
#   bash scripts/link-order.sh --check  how many of the file's symbols the built binary has
#
# The names are Rust's mangled symbols, whose hashes change with the compiler and with the
# dependency graph (Cargo.lock, features): rerun this after either changes, then rebuild.
# Symbols that no longer exist are ignored by the linker; `--check` (and bench/idle-rss.py) tell.
# Needs python3 and nm; recording also needs valgrind (callgrind counts which functions ran).
set -euo pipefail
cd "$(dirname "$0")/.."
ORDER=link/startup-order.txt
BIN=${BIN:-$PWD/target/release/connect-rs}
need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "link-order: '$tool' is missing on PATH" >&2; exit 1; }
  done
}
need python3 nm
if [ "${1:-}" = "--check" ]; then
  [ -x "$BIN" ] || { echo "link-order: no executable at $BIN" >&2; exit 1; }
  exec python3 - "$BIN" "$ORDER" <<'PY'
import subprocess, sys
binary, order = sys.argv[1], sys.argv[2]
syms = {}
for line in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4 and p[2] in "tTwW":
        syms[p[3]] = (int(p[0], 16), int(p[1], 16))
want = [l.strip() for l in open(order) if l.strip()]
found = [syms[s] for s in want if s in syms]
if not found:
    sys.exit(f"link-order: none of the symbols of {order} is in {binary}")
size = sum(n for _, n in found) / 2**20
span = (max(a + n for a, n in found) - min(a for a, _ in found)) / 2**20
print(f"{binary}: {len(found)} of {len(want)} symbols of {order} "
      f"({100 * len(found) / len(want):.0f} %), {size:.1f} MiB of code spread over {span:.1f} MiB "
      f"({'in order' if span < 1.2 * size else 'NOT in order: stale file or another linker'})")
PY
fi
need valgrind
cargo build --release --quiet --bin connect-rs
WORK=$(mktemp -d)
trap 'pkill -TERM -f "callgrind-out-file=$WORK" 2>/dev/null || true; rm -rf "$WORK"' EXIT

python3 - "$WORK" "$BIN" "$ORDER" <<'PY'
import json, os, re, socket, subprocess, sys, time, urllib.request

work, binary, order = sys.argv[1:4]

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.read()
    except OSError:
        return None

def running(port, name):
    body = get(port, f"/connectors/{name}/status")
    if not body:
        return False
    s = json.loads(body)
    return s["connector"]["state"] == "RUNNING" and all(t["state"] == "RUNNING" for t in s["tasks"])

def scenario(label, mode, converter, lines, log_level):
    """One worker under callgrind: FileStreamSource + FileStreamSink on the embedded log."""
    d = os.path.join(work, label)
    os.makedirs(d)
    port = free_port()
    with open(os.path.join(d, "in.txt"), "w") as f:
        f.writelines(f"line-{i}\n" for i in range(lines))
    worker = (f"key.converter={converter}\nvalue.converter={converter}\n"
              f"listeners=http://127.0.0.1:{port}\nembedded.log.dir={d}/data\n")
    if mode == "standalone":
        worker += f"offset.storage.file.filename={d}/offsets.json\n"
        args = ["standalone"]
    else:
        worker += ("group.id=link-order\nconfig.storage.topic=connect-configs\n"
                   "offset.storage.topic=connect-offsets\nstatus.storage.topic=connect-status\n")
        args = ["standalone", "--distributed"]
    files = {"worker.properties": worker,
             "source.properties": f"name=source\nconnector.class=FileStreamSource\nfile={d}/in.txt\ntopic=lines\n",
             "sink.properties": f"name=sink\nconnector.class=FileStreamSink\nfile={d}/out.txt\ntopics=lines\n"}
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    out = os.path.join(d, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
           binary, "--log-level", log_level, *args,
           *(os.path.join(d, n) for n in ("worker.properties", "source.properties", "sink.properties"))]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "stderr"), "w"))
    deadline = time.time() + 300
    while not (running(port, "source") and running(port, "sink")):
        if p.poll() is not None or time.time() > deadline:
            sys.exit(f"link-order: the {label} worker did not start; see {d}/stderr")
        time.sleep(0.5)
    out_file = os.path.join(d, "out.txt")
    while lines and (not os.path.exists(out_file) or sum(1 for _ in open(out_file)) < lines):
        if time.time() > deadline:
            sys.exit(f"link-order: the {label} worker did not copy its {lines} lines")
        time.sleep(0.5)
    for path in ("/", "/connectors?expand=status&expand=info", "/connector-plugins",
                 "/connectors/source/config", "/connectors/sink/tasks", "/connectors/source/offsets"):
        get(port, path)
    time.sleep(5)  # idle: timers, offset flushes, empty polls
    p.terminate()
    if p.wait(timeout=120) not in (0, 143, -15):
        sys.exit(f"link-order: the {label} worker did not stop cleanly; see {d}/stderr")
    return out

def functions_run(path, binary_name):
    """Mangled names of the binary's functions that ran, in the order callgrind lists them."""
    obs, fns, names, current = {}, {}, [], None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, num, name = m.groups()
        table = obs if kind.endswith("ob") else fns
        if name is not None:
            table[num] = name
        if kind == "ob":
            current = obs.get(num, "")
        elif kind == "fn" and current.endswith(binary_name):
            names.append(fns[num])
    return names

outputs = [
    scenario("idle", "standalone", "org.apache.kafka.connect.storage.StringConverter", 0, "warn"),
    scenario("copy", "standalone", "org.apache.kafka.connect.json.JsonConverter", 2000, "info"),
    scenario("distributed", "distributed", "org.apache.kafka.connect.storage.StringConverter", 100, "info"),
]
seen, ordered = set(), []
for out in outputs:
    for name in functions_run(out, os.path.basename(binary)):
        # Skip what the linker cannot place: unnamed code and callgrind's pseudo-functions.
        if name in seen or name.startswith(("0x", "(")):
            continue
        seen.add(name)
        ordered.append(name)
with open(order + ".tmp", "w") as f:
    f.write("\n".join(ordered) + "\n")
os.replace(order + ".tmp", order)
print(f"link-order: {len(ordered)} functions written to {order}; rebuild to use them")
PY
