#!/usr/bin/env python3
"""The per-kernel table of an Nsight Compute text report taken with ntt_side_by_side.sh's PIPES=1 metrics:
time, registers, occupancy, issue slots used, the 64-bit multiply-add pipe's (fmaheavy) busy fraction, ALU,
instructions, DRAM throughput, and the largest warp stall reasons (warps stalled per issued instruction).

    bench/gpu/ncu_pipe_table.py REPORT.txt [MIN_GRID]

Kernels launched with fewer than MIN_GRID blocks (default 1) are left out: sppark's harness checks a small
transform before it times the large one."""
import re
import sys

COLUMNS = [
    ("ms", "gpu__time_duration.sum"),
    ("regs", "launch__registers_per_thread"),
    ("occ%", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("issue%", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("fmaheavy%", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"),
    ("alu%", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
    ("inst", "smsp__inst_executed.sum"),
    ("dram%", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("math", "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"),
    ("wait", "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"),
    ("long_sb", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
    ("short_sb", "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"),
    ("barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"),
    ("mio", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"),
]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    try:
        min_grid = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    except ValueError:
        sys.exit(f"ncu_pipe_table.py: MIN_GRID '{sys.argv[2]}' is not a whole number")
    by_metric = {metric: name for name, metric in COLUMNS}
    kernels = []
    try:
        report = open(sys.argv[1], encoding="utf-8", errors="replace")
    except OSError as e:
        sys.exit(f"ncu_pipe_table.py: cannot read the report {sys.argv[1]}: {e.strerror}")
    with report:
        for line in report:
            head = re.match(r"\s+(?:void )?([A-Za-z_][\w:<>]*?)(?:<([^,(]*)[^(]*)?\(.*\((\d+), 1, 1\)x\((\d+), 1, 1\), Context", line)
            if head:
                name = head.group(1).split("::")[-1] + (f"<{head.group(2)}>" if head.group(2) else "")
                kernels.append({"kernel": name, "grid": int(head.group(3))})
                continue
            fields = line.split()
            if kernels and len(fields) >= 3 and fields[0] in by_metric:
                kernels[-1][by_metric[fields[0]]] = fields[-1]
    names = ["kernel", "grid"] + [name for name, _ in COLUMNS]
    print(" | ".join(names))
    for k in kernels:
        if k["grid"] >= min_grid:
            print(" | ".join(str(k.get(n, "")) for n in names))


if __name__ == "__main__":
    main()
