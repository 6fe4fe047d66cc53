#!/usr/bin/env python3
"""Per-partition steps of a gpud from its TIMELINE lines: prepare (pickup to lock request), lock wait,
kernels (GPU_START..GPU_END) and tail, as median / p90 / max in ms. With two workers the GPU waits whenever
one worker's prepare + tail outlast the other's kernels; `cuzk timeline` gives the gaps, this the causes.

    bench/gpu/partition_steps.py <gpud log> [<gpud log> ...]
"""
import statistics
import sys


def steps(path):
    picked, prepare, wait, kernels, tail = {}, [], [], [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("TIMELINE,"):
                continue
            fields = line.strip().split(",")
            t, event, job = int(fields[1]), fields[2], fields[3]
            kv = dict(x.split("=", 1) for x in fields[4:] if "=" in x)
            key = (job, kv.get("partition"), kv.get("gpu"))
            if event == "GPU_PICKUP":
                picked[key] = t
            elif event == "LOCK_WAIT" and key in picked:
                w = int(kv["ms"])
                wait.append(w)
                prepare.append(t - picked.pop(key) - w)
            elif event == "GPU_END":
                kernels.append(int(kv["ms"]))
            elif event == "TAIL_END":
                tail.append(int(kv["ms"]))
    return {"prepare": prepare, "lock wait": wait, "kernels": kernels, "tail": tail}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        try:
            s = steps(path)
        except OSError as e:
            sys.exit(f"partition_steps: {path}: {e.strerror}")
        print(f"{path}: {len(s['kernels'])} partitions (ms: median / p90 / max)")
        for name, v in s.items():
            if v:
                v = sorted(v)
                print(f"  {name:10} {statistics.median(v):7.0f} {v[int(len(v) * 0.9)]:7.0f} {v[-1]:7.0f}")


if __name__ == "__main__":
    main()
