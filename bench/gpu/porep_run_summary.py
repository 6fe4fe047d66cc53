#!/usr/bin/env python3
"""The short table of a run_porep_h200.sh run, from the files it leaves in OUT.

    porep_run_summary.py OUT REGISTERED_PROOF SYNTH_THREADS CORES GPUD_WORKERS

Reads OUT/timeline.json (`cuzk timeline --json`), OUT/bench.log, OUT/status.json (`cuzk status`), OUT/daemons.txt
(VmHWM, RssAnon and CPU seconds of each daemon before `cuzk down`), OUT/samples.csv (the sampler) and
OUT/logs/synthd.log (SLOT_READY bytes=). Steady state: the jobs and partitions the timeline does not count as
warm-up. GPU efficiency is given three ways: steady state, the whole run (the warm-up job, submitted alone first,
and the GPU's wait for the bench's first synthesis included), and over the bench's jobs, submitted at once (their
first GPU_START to their last GPU_END). The proofs were made from a synthetic C1 with synthetic parameters: timings
only, not valid proofs.
"""
import json
import math
import re
import statistics
import sys
from pathlib import Path

from post_run_summary import host_copy_given_back


def load_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def gb(n):
    return f"{n / 1e9:.2f} GB" if n is not None else "n/a"


def main():
    out, proof, threads, cores, gpud_workers = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    tl = load_json(out / "timeline.json") or {}
    status = load_json(out / "status.json") or {}
    rows = []

    def row(what, value):
        rows.append((what, value))

    jobs = [j for j in tl.get("jobs", []) if j.get("done_ms") is not None]
    steady_jobs = sorted((j for j in jobs if not j.get("warmup")), key=lambda j: j["done_ms"])
    parts = tl.get("partitions", [])
    steady_parts = [p for p in parts if not p.get("warmup")]
    per_job = max((j.get("partitions", 0) for j in jobs), default=0)

    # Throughput: completions in steady state, else the bench's wall time per job.
    bench = (out / "bench.log").read_text() if (out / "bench.log").exists() else ""
    m = re.search(r"throughput: ([0-9.]+) s/proof", bench)
    bench_s = float(m.group(1)) if m else None
    if len(steady_jobs) >= 2:
        s_per_proof = (steady_jobs[-1]["done_ms"] - steady_jobs[0]["done_ms"]) / 1000 / (len(steady_jobs) - 1)
        how = f"{len(steady_jobs)} steady jobs, first to last completion"
    else:
        s_per_proof, how = bench_s, "bench wall time / jobs (too few steady jobs)"
    if s_per_proof:
        row("s/proof, steady state", f"{s_per_proof:.2f} s ({how}); proofs/hour {3600 / s_per_proof:.0f}")
    if bench_s:
        row("s/proof over the whole bench", f"{bench_s:.2f} s (the pipeline's fill included)")
    # The bench's jobs: all but the warm-up job, the first submitted.
    submitted = sorted((j for j in jobs if j.get("latency") is not None), key=lambda j: j["submit_ms"])
    bench_jobs = submitted[1:] or submitted
    if bench_jobs:
        first = bench_jobs[0]
        lat = sorted(j["latency"] / 1000 for j in bench_jobs)
        row("latency of one job", f"{first['latency'] / 1000:.1f} s (the first of the batch, an empty pipeline); "
            f"batch p50 {statistics.median(lat):.1f} s, max {lat[-1]:.1f} s (queueing included)")

    # The GPU.
    steady = tl.get("steady", {})
    all_ = tl.get("all", {})
    gpu_ms = [p["gpu_time"] for p in steady_parts if p.get("gpu_time") is not None] or \
             [p["gpu_time"] for p in parts if p.get("gpu_time") is not None]
    gpu_s = statistics.median(gpu_ms) / 1000 if gpu_ms else None
    if steady.get("efficiency") is not None:
        stalls = steady.get("synthesis_stalls", {})
        row("GPU efficiency (under the lock / span)",
            f"{100 * steady['efficiency']:.1f} % steady state ({steady['busy_ms']} of {steady['span_ms']} ms; "
            f"{stalls.get('count', 0)} synthesis stalls, {stalls.get('ms', 0)} ms), "
            f"{100 * (all_.get('efficiency') or 0):.1f} % over the whole run")
    # The bench's jobs, finished or not (their partitions interleave): every job but the first submitted.
    by_submit = sorted((j for j in tl.get("jobs", []) if j.get("submit_ms") is not None), key=lambda j: j["submit_ms"])
    batch_jobs = {j["job"] for j in by_submit[1:]}
    batch = _batch_efficiency(parts, batch_jobs)
    if batch:
        busy, span, n = batch
        row("GPU efficiency over the bench's jobs",
            f"{100 * busy / span:.1f} % ({busy} of {span} ms under the lock, {n} partitions of the {len(batch_jobs)} "
            f"jobs submitted at once, their first GPU_START to their last GPU_END; the whole run above adds the "
            f"warm-up job and the GPU's wait between it and the bench for the first partitions' synthesis)")
    if gpu_s:
        row("GPU time per partition", f"{1000 * gpu_s:.0f} ms median (GPU_START..GPU_END); "
            f"{per_job} partitions: {per_job * gpu_s:.1f} s of GPU a proof")

    # Synthesis: wall per partition (one thread each) and synthd's CPU seconds per partition synthesized.
    synth_ms = [p["synth"] for p in steady_parts if p.get("synth") is not None] or \
               [p["synth"] for p in parts if p.get("synth") is not None]
    synth_s = statistics.median(synth_ms) / 1000 if synth_ms else None
    daemons = {}
    if (out / "daemons.txt").exists():
        for line in (out / "daemons.txt").read_text().splitlines():
            f = line.split()
            if len(f) >= 2:
                daemons[f[0]] = {f[i]: float(f[i + 1]) for i in range(1, len(f) - 1, 2) if re.match(r"^[0-9.]+$", f[i + 1])}
    synthd_log = out / "logs" / "synthd.log"
    log = synthd_log.read_text(errors="replace") if synthd_log.exists() else ""
    synthesized = log.count(",SYNTH_END,")
    slot_bytes = [int(b) for b in re.findall(r",SLOT_READY,.*bytes=([0-9]+)", log)]
    core_s = daemons.get("synthd", {}).get("cpu_s", 0) / synthesized if synthesized else None
    if synth_s:
        row("synthesis per partition", f"{synth_s:.2f} s wall median (one thread each, {threads} threads)"
            + (f"; {core_s:.2f} core-seconds (synthd's CPU time / {synthesized} partitions, C1 parsing and ring "
               f"writes included)" if core_s else ""))
    if slot_bytes:
        row("ring slot bytes used", f"{max(slot_bytes) / 1e6:.1f} MB max, {statistics.mean(slot_bytes) / 1e6:.1f} MB mean "
            f"(compact witness) of {_slot_size(out) / 2**20:.0f} MiB slots")

    # Memory.
    peaks = _sample_peaks(out / "samples.csv")
    for stage in ("assemblerd", "synthd", "gpud"):
        d = daemons.get(stage)
        if not d:
            continue
        anon = peaks["anon"].get(stage)
        extra = f", private (RssAnon) peak {anon / 1e9:.2f} GB" if anon else ""
        if stage == "synthd" and anon:
            extra += f" ({anon / threads / 1e6:.0f} MB a synthesis thread, the process's own included)"
        row(f"peak RSS {stage}", f"{d.get('vmhwm_kb', 0) * 1024 / 1e9:.2f} GB (VmHWM, ring pages it touched included){extra}")
    if peaks["mem_available_min"] is not None:
        row("host memory available, least", f"{peaks['mem_available_min'] / 1e9:.1f} GB")
    gpud = status.get("gpud") or {}
    dev = gpud.get("device")
    if dev:
        row("device memory in use", f"{(dev['total_bytes'] - dev['free_bytes']) / 2**30:.1f} GiB of "
            f"{dev['total_bytes'] / 2**30:.1f} GiB at the end"
            + (f"; nvidia-smi peak {peaks['gpu_mem_max'] / 1024:.1f} GiB" if peaks["gpu_mem_max"] else ""))
    for p in gpud.get("params", []):
        row("parameters", f"{p['circuit']}: {gb(p['bytes'])}{' SYNTHETIC (proofs not valid)' if p.get('synthetic') else ''}, "
            f"loaded in {p['load_ms'] / 1000:.1f} s (matrices recorded or read included)")

    c = gpud.get("backend_counters") or {}
    given_back = host_copy_given_back(c, daemons.get("gpud", {}).get("anon_kb", 0) * 1024)
    if given_back:
        row("parameters' host copy", given_back)

    # PCIe: the compact witness per partition (CUDA backend counters), and the host ranges copied.
    proved = sum(w.get("proved", 0) for w in gpud.get("workers", [])) or None
    if c.get("compact_partitions"):
        row("PCIe bytes per partition", f"{c['compact_uploaded_bytes'] / c['compact_partitions'] / 1e6:.1f} MB of compact "
            f"witness" + (f"; host ranges copied (pinned + pageable): "
                          f"{(c.get('pinned_bytes', 0) + c.get('pageable_bytes', 0)) / proved / 1e6:.1f} MB" if proved else ""))
    elif gpud.get("backend") != "cuda":
        row("PCIe bytes per partition", f"n/a (backend {gpud.get('backend')})")

    # The bound.
    if gpu_s and synth_s:
        gpu_rate = 1 / gpu_s
        synth_rate = threads / synth_s
        eff = steady.get("efficiency")
        gpud_core_s = daemons.get("gpud", {}).get("cpu_s", 0) / proved if proved else 0
        need = (core_s or synth_s) / gpu_s + gpud_core_s / gpu_s
        if eff is not None and eff >= 0.98:
            bound = "the GPU"
        elif synth_rate < gpu_rate:
            bound = "synthesis (the CPU cores)"
        else:
            bound = "neither GPU nor synthesis capacity: see the timeline's gaps (ring slots, dispatch, tails)"
        row("bound by", f"{bound}: GPU {gpu_rate:.2f} partitions/s, synthesis capacity {synth_rate:.2f} partitions/s "
            f"({threads} threads); the GPU is the bound from ~{math.ceil(need)} cores "
            f"(synthd {core_s or synth_s:.2f} + gpud {gpud_core_s:.2f} core-s a partition, over {gpu_s:.2f} s of GPU; "
            f"this machine {cores})")

    print(f"PoRep C2 {proof}: synthetic C1 and parameters (test facilities): timings only, no valid proof")
    width = max(len(w) for w, _ in rows) if rows else 0
    for what, value in rows:
        print(f"  {what:<{width}}  {value}")


def _batch_efficiency(parts, jobs):
    """(busy ms, span ms, partitions) of the given jobs' partitions on the GPU: their time under the lock over the
    span from their first GPU_START to their last GPU_END, or None without such partitions. One GPU's run."""
    ran = [p for p in parts if p.get("job") in jobs and p.get("gpu_start_ms") is not None
           and p.get("gpu_end_ms") is not None]
    if not ran:
        return None
    span = max(p["gpu_end_ms"] for p in ran) - min(p["gpu_start_ms"] for p in ran)
    busy = sum(p["gpu_end_ms"] - p["gpu_start_ms"] for p in ran)
    return (busy, span, len(ran)) if span > 0 else None


def _slot_size(out):
    m = re.search(r"^slot_bytes = ([0-9]+)", (out / "cuzk.toml").read_text(), re.M) if (out / "cuzk.toml").exists() else None
    return int(m.group(1)) if m else 0


def _sample_peaks(path):
    peaks = {"anon": {}, "mem_available_min": None, "gpu_mem_max": None}
    if not path.exists():
        return peaks
    for line in path.read_text().splitlines()[1:]:
        f = line.split(",")
        if len(f) < 3:
            continue
        for d in f[1].split():
            stage, _, rest = d.partition(":")
            rss, _, anon = rest.partition(":")
            if anon.isdigit():
                peaks["anon"][stage] = max(peaks["anon"].get(stage, 0), int(anon) * 1024)
        if f[2].isdigit():
            b = int(f[2]) * 1024
            peaks["mem_available_min"] = b if peaks["mem_available_min"] is None else min(peaks["mem_available_min"], b)
        if len(f) > 3 and f[3].strip().isdigit():
            peaks["gpu_mem_max"] = max(peaks["gpu_mem_max"] or 0, int(f[3]))
    return peaks


if __name__ == "__main__":
    main()
