#!/usr/bin/env python3
"""Idle worker RSS of one or more connect-rs binaries side by side: FileStreamSource +
FileStreamSink on an empty file on the embedded log, VmRSS 2 s after start, 5 alternating rounds.
Usage: bench/idle-rss.py BINARY [BINARY...]  (prints median (min - max) MiB per binary)"""
import subprocess, time, sys, statistics, tempfile

bins = sys.argv[1:]
if not bins:
    sys.exit(__doc__)
res = {b: [] for b in bins}
for r in range(5):
    for b in bins:
        d = tempfile.mkdtemp()
        open(f"{d}/in.txt","w").close()
        open(f"{d}/w.properties","w").write(f"key.converter=org.apache.kafka.connect.storage.StringConverter\nvalue.converter=org.apache.kafka.connect.storage.StringConverter\nlisteners=http://127.0.0.1:0\nembedded.log.dir={d}/data\noffset.storage.file.filename={d}/off.json\n")
        open(f"{d}/s.properties","w").write(f"name=s\nconnector.class=FileStreamSource\nfile={d}/in.txt\ntopic=t\n")
        open(f"{d}/k.properties","w").write(f"name=k\nconnector.class=FileStreamSink\nfile={d}/out.txt\ntopics=t\n")
        p = subprocess.Popen([b, "--log-level", "warn", "standalone", f"{d}/w.properties", f"{d}/s.properties", f"{d}/k.properties"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        rss = [l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS")][0].split()[1]
        res[b].append(int(rss)/1024)
        p.terminate(); p.wait()
for b in bins:
    v = res[b]; print(b, f"{statistics.median(v):.1f} ({min(v):.1f} - {max(v):.1f})", [round(x,1) for x in v])
# Whether each binary has its start-up functions together (a stale order file costs ~6 MiB).
import os
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "link-order.sh")
for b in bins:
    subprocess.run(["bash", script, "--check"], env={**os.environ, "BIN": b}, check=True)
