# Sums Nsight Compute's gpu__time_duration per kernel name within each GPU MSM run (a run starts at
# classify_kernel), from `ncu --metrics gpu__time_duration.sum --csv --page raw` output (run_h200.sh's
# "kernelsums" mode). Usage: python3 ncu_kernel_sums.py NCU_CSV
import csv, sys, re, collections
if len(sys.argv) != 2:
    sys.exit('usage: ncu_kernel_sums.py NCU_CSV')
try:
    rows = list(csv.reader(open(sys.argv[1])))
except OSError as e:
    sys.exit(f'ncu_kernel_sums.py: cannot read {sys.argv[1]}: {e.strerror}')
hdr = None
runs = []
scale = 1
for r in rows:
    if hdr is None:
        if 'Kernel Name' in r: hdr = r
        continue
    if len(r) != len(hdr): continue
    d = dict(zip(hdr, r))
    if d.get('Kernel Name', '') == '' or d.get('ID', '') == '':
        u = d.get('gpu__time_duration.sum', '')
        scale = {'nsecond': 1, 'usecond': 1e3, 'msecond': 1e6, 'second': 1e9}.get(u, scale)
        continue
    name = d['Kernel Name']
    try: t = float(d['gpu__time_duration.sum'].replace(',', '')) * scale
    except (ValueError, KeyError): continue
    short = re.sub(r'[<(].*', '', name.replace('void ', '').replace('<unnamed>', '').replace('(anonymous namespace)', '')).split('::')[-1]
    if short == 'classify_kernel': runs.append(collections.OrderedDict())
    if not runs: continue
    k = runs[-1]
    c, s = k.get(short, (0, 0.0)); k[short] = (c + 1, s + t)
if hdr is None or not runs:
    sys.exit(f'ncu_kernel_sums.py: {sys.argv[1]}: no ncu kernel rows with gpu__time_duration.sum and classify_kernel '
             '(did ncu fail? see its .err file)')
for i, k in enumerate(runs):
    tot = sum(s for c, s in k.values())
    print(f'run {i}: {len(k)} kernel names, {sum(c for c,s in k.values())} launches, sum {tot/1e6:.2f} ms')
    for n, (c, s) in sorted(k.items(), key=lambda x: -x[1][1]):
        print(f'   {n:40s} x{c:5d} {s/1e6:9.3f} ms')
