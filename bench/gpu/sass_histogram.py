#!/usr/bin/env python3
"""Instruction mix of the machine code of chosen functions, from `cuobjdump --dump-sass` output.

    cuobjdump --dump-sass BINARY | bench/gpu/sass_histogram.py [SUBSTRING ...]

For each function whose (mangled) name contains one of the substrings (all functions when none is
given): its instruction count and the most frequent opcodes (with modifiers, predicates dropped), so two
schedules of the same arithmetic can be compared by what the GPU actually issues.
"""
import collections
import re
import sys

wanted = sys.argv[1:]
functions = collections.OrderedDict()
current = None
for line in sys.stdin:
    m = re.match(r"\s*Function : (\S+)", line)
    if m:
        name = m.group(1)
        current = name if not wanted or any(w in name for w in wanted) else None
        if current:
            functions[current] = collections.Counter()
        continue
    if current is None:
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m:
        functions[current][m.group(1)] += 1

for name, counts in functions.items():
    total = sum(counts.values())
    base = collections.Counter()
    for op, n in counts.items():
        base[op.split(".")[0]] += n
    print(f"{name}\n  {total} instructions; by opcode: " + ", ".join(f"{op} {n}" for op, n in base.most_common(12)))
    print("  with modifiers: " + ", ".join(f"{op} {n}" for op, n in counts.most_common(14)))
