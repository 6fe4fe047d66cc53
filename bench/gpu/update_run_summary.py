#!/usr/bin/env python3
"""The short table of a run_update_h200.sh run, from the files it leaves in OUT.

    update_run_summary.py OUT REGISTERED_PROOF SYNTH_THREADS CORES

Reads OUT/jobs.csv (label,job,client_ms: warmup, alone-<i>, batch-<i>), OUT/timeline.json (`cuzk timeline
--json`), OUT/batch.log (the batch's wall time), OUT/status.json (`cuzk status`), OUT/daemons-before-bench.txt and
OUT/daemons.txt (VmHWM, RssAnon and CPU seconds of each daemon before the batch and before `cuzk down`),
OUT/samples.csv (the sampler) and OUT/logs/synthd.log (SLOT_READY bytes=). The update and the parameters were
synthetic: timings only, not valid proofs.
"""
import re
import statistics
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts (git does not ignore it)
from porep_run_summary import _sample_peaks, _slot_size, load_json
from post_run_summary import fmt_ms, host_copy_given_back, peaks


def size(n):
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def main():
    out, proof, threads, cores = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    tl = load_json(out / "timeline.json") or {}
    status = load_json(out / "status.json") or {}
    rows = []

    def row(what, value):
        rows.append((what, value))

    runs = []  # (label, job, client_ms)
    try:
        for line in (out / "jobs.csv").read_text().splitlines():
            label, job, client_ms = line.split(",")
            runs.append((label, job, int(client_ms)))
    except (OSError, ValueError):
        pass
    jobs = {str(j["job"]): j for j in tl.get("jobs", [])}
    parts = [p for p in tl.get("partitions", []) if p.get("gpu_end_ms") is not None]

    def of(prefix):
        ids = {job for label, job, _ in runs if label.startswith(prefix)}
        return [jobs[i] for i in sorted(ids, key=int) if i in jobs], [p for p in parts if str(p["job"]) in ids]

    warm_jobs, warm_parts = of("warmup")
    alone_jobs, alone_parts = of("alone-")
    batch_jobs, batch_parts = of("batch-")
    per_job = max((j.get("partitions", 0) for j in jobs.values()), default=0)
    measured = alone_parts + batch_parts or parts

    # Per partition: synthesis (wall: one synthd thread each; core-seconds: synthd's CPU time over the partitions it
    # synthesized, the job input's decoding and the ring writes included), GPU under the lock, ring slot, memory.
    daemons = peaks(out / "daemons.txt")
    synthd_log = out / "logs" / "synthd.log"
    log = synthd_log.read_text(errors="replace") if synthd_log.exists() else ""
    synthesized = log.count(",SYNTH_END,")
    slot_bytes = [int(b) for b in re.findall(r",SLOT_READY,.*bytes=([0-9]+)", log)]
    synth = [p["synth"] for p in measured if p.get("synth") is not None]
    core_s = daemons.get("synthd", {}).get("cpu_s", 0) / synthesized if synthesized else None
    if synth:
        row("synthesis per partition", f"{fmt_ms(synth)} wall (one thread each, {threads} threads)"
            + (f"; {core_s:.2f} core-seconds (synthd's CPU time / {synthesized} partitions, input decoding and ring "
               f"writes included)" if core_s is not None else ""))
    gpu = [p["gpu_time"] for p in measured if p.get("gpu_time") is not None]
    if gpu:
        row("GPU time under the lock per partition", f"{fmt_ms(gpu)} (GPU_START..GPU_END, the warm-up job left out); "
            f"{per_job} partitions: {per_job * statistics.median(gpu) / 1000:.1f} s of GPU a proof")
    if slot_bytes:
        row("ring slot bytes per partition", f"{max(slot_bytes) / 1e6:.1f} MB max, {statistics.mean(slot_bytes) / 1e6:.1f} "
            f"MB mean (compact witness) of {_slot_size(out) / 2**20:.0f} MiB slots")
    samples = _sample_peaks(out / "samples.csv")
    anon = samples["anon"].get("synthd")
    if slot_bytes and anon:
        per_thread = anon / max(1, min(threads, per_job * max(1, len(batch_jobs))))
        row("host memory per partition in flight", f"{(max(slot_bytes) + per_thread) / 1e6:.1f} MB: its ring slot "
            f"{max(slot_bytes) / 1e6:.1f} MB + synthd's private peak {anon / 1e6:.1f} MB over its "
            f"{min(threads, per_job * max(1, len(batch_jobs)))} busy threads ({per_thread / 1e6:.1f} MB); gpud's "
            f"memory is per parameter set (below)")

    # Whole jobs: the warm-up, one alone, the batch.
    for j, (label, job, ms) in zip(warm_jobs, [r for r in runs if r[0] == "warmup"]):
        row("warm-up job (matrices and parameters)", f"{j['latency'] / 1000:.1f} s submission to proof "
            f"({ms / 1000:.1f} s from the client's start)")
    if alone_jobs:
        lat = [j["latency"] for j in alone_jobs]
        row(f"one {per_job}-partition job alone, after the warm-up",
            f"{statistics.median(lat) / 1000:.2f} s submission to proof" + (f" (median of {len(lat)}, max "
                                                                           f"{max(lat) / 1000:.2f} s)" if len(lat) > 1 else ""))
    if batch_jobs:
        n = len(batch_jobs)
        begin = min(j["submit_ms"] for j in batch_jobs)
        done = sorted(j["done_ms"] for j in batch_jobs)
        row(f"{n} jobs submitted at once: s/proof", f"{(done[-1] - begin) / 1000 / n:.2f} s (first submission to "
            f"last proof / {n}; {3600 * n / ((done[-1] - begin) / 1000):.0f} proofs/hour)"
            + (f"; {(done[-1] - done[0]) / 1000 / (n - 1):.2f} s between completions" if n > 1 else ""))
        lat = sorted(j["latency"] / 1000 for j in batch_jobs)
        row(f"{n} jobs submitted at once: latency", f"min {lat[0]:.1f} s, p50 {statistics.median(lat):.1f} s, "
            f"max {lat[-1]:.1f} s")
    m = re.search(r"wall ([0-9.]+) s", (out / "batch.log").read_text() if (out / "batch.log").exists() else "")
    if m and batch_jobs:
        row("the batch from the clients", f"{m.group(1)} s wall for {len(batch_jobs)} jobs (submit and await)")

    # GPU efficiency over the batch: time under the lock / its first GPU_START to last GPU_END (the idle time between
    # the alone job and the batch left out, which the timeline's steady state counts).
    if batch_parts:
        b0 = min(p["gpu_start_ms"] for p in batch_parts)
        b1 = max(p["gpu_end_ms"] for p in batch_parts)
        busy = sum(p["gpu_end_ms"] - p["gpu_start_ms"] for p in parts if b0 <= p["gpu_start_ms"] and p["gpu_end_ms"] <= b1)
        if b1 > b0:
            row("GPU efficiency, the batch", f"{100 * busy / (b1 - b0):.1f} % ({busy} of {b1 - b0} ms under the lock, "
                f"its first GPU_START to last GPU_END)")
    all_ = tl.get("all", {})
    if all_.get("efficiency") is not None:
        row("GPU efficiency, the whole run (timeline)", f"{100 * all_['efficiency']:.1f} % ({all_['busy_ms']} of "
            f"{all_['span_ms']} ms; the clients' idle time between the phases included)")

    # Memory and parameters.
    for stage in ("assemblerd", "synthd", "gpud"):
        d = daemons.get(stage)
        if d:
            a = samples["anon"].get(stage)
            row(f"peak RSS {stage}", f"{size(d.get('vmhwm_kb', 0) * 1024)} (VmHWM, ring pages it touched "
                f"included)" + (f", private (RssAnon) peak {size(a)}" if a else "")
                + f", {d.get('cpu_s', 0):.0f} CPU s")
    if samples["mem_available_min"] is not None:
        row("host memory available, least", f"{samples['mem_available_min'] / 1e9:.1f} GB")
    gpud = status.get("gpud") or {}
    dev = gpud.get("device")
    if dev:
        row("device memory in use", f"{(dev['total_bytes'] - dev['free_bytes']) / 2**30:.1f} GiB of "
            f"{dev['total_bytes'] / 2**30:.1f} GiB at the end"
            + (f"; nvidia-smi peak {samples['gpu_mem_max'] / 1024:.1f} GiB" if samples["gpu_mem_max"] else ""))
    for p in gpud.get("params", []):
        row("parameters", f"{p['circuit']}: {size(p['bytes'])}{' SYNTHETIC' if p.get('synthetic') else ''}, "
            f"ready in {p['load_ms'] / 1000:.1f} s (matrices recorded or read included)")
    given_back = host_copy_given_back(gpud.get("backend_counters") or {}, daemons.get("gpud", {}).get("anon_kb", 0) * 1024)
    if given_back:
        row("parameters' host copy", given_back)
    row("synthd threads / cores; backend", f"{threads} / {cores}; {gpud.get('backend', '?')}")

    print(f"SnapDeals update {proof}: synthetic update and parameters (test facilities): timings only, no valid proof")
    width = max(len(w) for w, _ in rows) if rows else 0
    for what, value in rows:
        print(f"  {what:<{width}}  {value}")
    return 0 if batch_jobs else 1


if __name__ == "__main__":
    sys.exit(main())
