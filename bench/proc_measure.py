#!/usr/bin/env python3
"""bench/proc_measure.py [--tmp DIR] -- CMD...: runs CMD with TMPDIR=DIR (default: a fresh dir), polls it every 20 ms:
peak RSS (VmHWM), bytes written (wchar), the most bytes held at once in temporary files (open fds whose
target is under DIR, /var/tmp or /tmp and (deleted) or named etilqs_/sqlgrade-spill), wall time."""
import os, shutil, subprocess, sys, time, tempfile, json
args = sys.argv[1:]
tmp = None
if args and args[0] == "--tmp":
    tmp = args[1]; args = args[2:]
if args and args[0] == "--":
    args = args[1:]
own_tmp = tmp is None
tmp = tmp or tempfile.mkdtemp(prefix="proc-measure-")
env = dict(os.environ, TMPDIR=tmp)
t0 = time.time()
p = subprocess.Popen(args, env=env)
peak_tmp = 0; hwm = 0; wchar = 0
def poll(pid):
    global peak_tmp, hwm, wchar
    try:
        for l in open(f"/proc/{pid}/status"):
            if l.startswith("VmHWM:"): hwm = max(hwm, int(l.split()[1]) * 1024)
        for l in open(f"/proc/{pid}/io"):
            if l.startswith("wchar:"): wchar = max(wchar, int(l.split()[1]))
        tot = 0
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                tgt = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if (tgt.startswith(tmp) or tgt.startswith("/var/tmp") or tgt.startswith("/tmp/")) and ("etilqs" in tgt or "sqlgrade-spill" in tgt or "(deleted)" in tgt):
                try: tot += os.stat(f"/proc/{pid}/fd/{fd}").st_size
                except OSError: pass
        peak_tmp = max(peak_tmp, tot)
    except OSError:
        pass
while p.poll() is None:
    poll(p.pid); time.sleep(0.02)
left = sum(len(fs) for _, _, fs in os.walk(tmp)) + sum(len(ds) for _, ds, _ in os.walk(tmp))
print(json.dumps({"rc": p.returncode, "wall_s": round(time.time() - t0, 2), "peak_rss_mib": round(hwm / 2**20, 1),
                  "written_mib": round(wchar / 2**20, 1), "peak_temp_mib": round(peak_tmp / 2**20, 1),
                  "entries_left_in_tmpdir": left}), file=sys.stderr)
if own_tmp:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(p.returncode)
