#!/usr/bin/env python3
"""The short table of a run_post_h200.sh run, from the files it leaves in OUT.

    post_run_summary.py OUT SYNTH_THREADS CORES

Reads OUT/jobs.csv (label,job,client_ms per PoSt job the script submitted), OUT/timeline.json (`cuzk timeline
--json`: each job's submission and completion, each partition's synthesis, wait, lock wait and GPU time),
OUT/logs/synthd.log (SLOT_READY bytes=), OUT/daemons-before-window.txt and daemons-after-window.txt (VmHWM of each
daemon around the WindowPoSt jobs), OUT/daemons.txt and OUT/samples.csv. The vanilla proofs, the C1 and the
parameters were synthetic: timings only, not valid proofs.
"""
import json
import re
import statistics
import sys
from pathlib import Path


def load_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def peaks(path):
    """stage -> {vmhwm_kb, vmrss_kb, anon_kb, cpu_s} from a record_daemon_peaks file."""
    out = {}
    try:
        for line in path.read_text().splitlines():
            f = line.split()
            if not f:
                continue
            out[f[0]] = {f[i]: float(f[i + 1]) for i in range(1, len(f) - 1, 2) if f[i] != "pid"}
    except OSError:
        pass
    return out


def host_copy_given_back(counters, anon_bytes):
    """The row text for the parameters' host copy the CUDA backend gave back ([gpud] release_host_points), from its
    backend counters and gpud's private memory at the end (bytes, or None); None where the backend does not count it."""
    if "host_points_released_bytes" not in counters:
        return None
    return (f"{counters['host_points_released_bytes'] / 1e9:.2f} GB given back, the sets resident at the end "
            f"([gpud] release_host_points)"
            + (f"; gpud private memory (RssAnon) at the end {anon_bytes / 1e9:.2f} GB" if anon_bytes else ""))


def fmt_ms(values):
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.0f} ms"
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms (n={len(values)})"


def main():
    out, threads, cores = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    tl = load_json(out / "timeline.json") or {}
    jobs_by_id = {str(j["job"]): j for j in tl.get("jobs", [])}
    parts_by_job = {}
    for p in tl.get("partitions", []):
        parts_by_job.setdefault(str(p["job"]), []).append(p)
    synthd_log = (out / "logs" / "synthd.log").read_text(errors="replace") if (out / "logs" / "synthd.log").exists() else ""
    slot_bytes = {}
    for m in re.finditer(r",SLOT_READY,([^,\s]+),.*?bytes=([0-9]+)", synthd_log):
        slot_bytes[m.group(1)] = int(m.group(2))

    runs = []
    try:
        for line in (out / "jobs.csv").read_text().splitlines():
            label, job, client_ms = line.split(",")
            runs.append((label, job, int(client_ms)))
    except (OSError, ValueError):
        pass

    def group(prefix):
        rows = []
        for label, job, client_ms in runs:
            if not label.startswith(prefix):
                continue
            j = jobs_by_id.get(job, {})
            ps = parts_by_job.get(job, [])
            p = ps[0] if ps else {}
            rows.append({"label": label, "job": job, "client_ms": client_ms, "latency": j.get("latency"),
                         "synth": p.get("synth"), "wait": p.get("wait"), "lock_wait": p.get("lock_wait"),
                         "gpu": p.get("gpu_time"), "tail": p.get("tail"), "bytes": slot_bytes.get(job)})
        return rows

    def col(rows, key):
        return [r[key] for r in rows if r.get(key) is not None]

    table = []
    # [gpud] preload (run_post_h200.sh PRELOAD): the warm-up WinningPoSt came after gpud had loaded its set.
    toml = out / "cuzk.toml"
    preloaded = toml.exists() and re.search(r'^preload = "[^"]*winning', toml.read_text(), re.M | re.I) is not None
    warmup = "WinningPoSt warm-up (its set preloaded as gpud started)" if preloaded else \
        "WinningPoSt warm-up (parameters loaded)"
    for what, prefix in (("WinningPoSt, idle", "winning-idle-"), ("WinningPoSt, under PoRep load", "winning-loaded-"),
                         ("WindowPoSt partition", "window-"), (warmup, "winning-warmup"),
                         ("WindowPoSt warm-up (matrices and parameters)", "window-warmup")):
        rows = group(prefix)
        if prefix == "window-":
            rows = [r for r in rows if r["label"] != "window-warmup"]
        if not rows:
            continue
        table.append((f"{what}: submission to proof (service)", fmt_ms(col(rows, "latency"))))
        table.append((f"{what}: client start to proof", fmt_ms(col(rows, "client_ms"))))
        table.append((f"{what}: synthesis / ring wait / lock wait / GPU (under the lock or beside it) / tail",
                      " / ".join(fmt_ms(col(rows, k)) for k in ("synth", "wait", "lock_wait", "gpu", "tail"))))
        sizes = col(rows, "bytes")
        if sizes:
            table.append((f"{what}: ring slot bytes", f"{max(sizes) / 1e6:.1f} MB"))
    # The PoRep phase (the warm-up job, then the bench under which the loaded WinningPoSts ran): the PoRep
    # partitions' time under the lock over its span (the WinningPoSts run beside the lock, overlapping it, so they
    # are left out), and the warm-up job's partitions under the lock (its parameters and matrices are uploaded
    # before the lock, in prepare: the first partition is no longer).
    post_jobs = {job for _, job, _ in runs}
    porep_parts = [p for p in tl.get("partitions", []) if str(p["job"]) not in post_jobs
                   and p.get("gpu_start_ms") is not None and p.get("gpu_end_ms") is not None]
    if porep_parts:
        begin = min(p["gpu_start_ms"] for p in porep_parts)
        end = max(p["gpu_end_ms"] for p in porep_parts)
        busy = sum(p["gpu_end_ms"] - p["gpu_start_ms"] for p in porep_parts)
        if end > begin:
            table.append(("PoRep phase: GPU efficiency (PoRep under the lock / first to last PoRep GPU time)",
                          f"{100.0 * busy / (end - begin):.1f} % ({busy} of {end - begin} ms)"))
        first_job = min(porep_parts, key=lambda p: p["gpu_start_ms"])["job"]
        warm = [p["gpu_end_ms"] - p["gpu_start_ms"] for p in porep_parts if p["job"] == first_job]
        rest = [p["gpu_end_ms"] - p["gpu_start_ms"] for p in porep_parts if p["job"] != first_job]
        table.append(("PoRep warm-up job: GPU under the lock per partition (first, max; the rest's median)",
                      f"{warm[0]:.0f} ms, {max(warm):.0f} ms; {statistics.median(rest) if rest else 0:.0f} ms"))
    before, after, final = (peaks(out / n) for n in ("daemons-before-window.txt", "daemons-after-window.txt", "daemons.txt"))
    if "synthd" in after:
        b = before.get("synthd", {}).get("vmhwm_kb", 0)
        a = after["synthd"]["vmhwm_kb"]
        table.append(("synthd peak RSS (VmHWM) before / after the WindowPoSt jobs",
                      f"{b / 1e6:.2f} / {a / 1e6:.2f} GB (ring pages it wrote included)"))
    for stage in ("assemblerd", "synthd", "gpud"):
        if stage in final:
            table.append((f"{stage} peak RSS at the end", f"{final[stage]['vmhwm_kb'] / 1e6:.2f} GB, "
                                                          f"{final[stage].get('cpu_s', 0):.0f} CPU s"))
    counters = ((load_json(out / "status.json") or {}).get("gpud") or {}).get("backend_counters") or {}
    given_back = host_copy_given_back(counters, final.get("gpud", {}).get("anon_kb", 0) * 1024)
    if given_back:
        table.append(("parameters' host copy", given_back))
    gpu_mem = []
    try:
        for line in (out / "samples.csv").read_text().splitlines()[1:]:
            f = line.split(",")
            if len(f) >= 4 and f[3]:
                gpu_mem.append(int(f[3]))
    except (OSError, ValueError):
        pass
    if gpu_mem:
        table.append(("device memory in use, most", f"{max(gpu_mem) / 1024:.1f} GiB"))
    table.append(("synthd threads / cores", f"{threads} / {cores}"))

    width = max(len(w) for w, _ in table) if table else 0
    print("SYNTHETIC vanilla proofs, C1 and parameters (test facilities): timings only, no valid proof")
    for what, value in table:
        print(f"{what:<{width}}  {value}")
    return 0 if runs else 1


if __name__ == "__main__":
    sys.exit(main())
