#!/usr/bin/env python3
"""Tunes the warm-up checkpoint on a recorded samples file (mirrors StopPolicy::steady_state_start_weighted).

For every fork: the window vector of iteration-weighted CVs (eq. 1 of Laaber et al.) after each
sample i'' in [5, n/2]; stable when max - min <= max(t, rho * noise), noise = weighted CV of the
fork's second half. Prints, per (t, rho), the fraction of forks flagged unsteady, the mean samples
dropped, and (with --inject) the fraction of forks whose injected warm-up (first K samples slower)
is detected. Usage: stop_tune_warmup.py FILE.json [--inject 0.2]
"""
import json, sys, math

def wcv(v, w):
    if len(v) < 2: return float('nan')
    tw = sum(w); m = sum(a*b for a, b in zip(v, w)) / tw
    if m <= 0: return float('nan')
    return math.sqrt(sum(b*(a-m)**2 for a, b in zip(v, w)) / tw) / m

def detect(v, w, t, rho, window=5, wmin=5):
    n = len(v); wmax = max(int(n*0.5), wmin)
    half = n // 2
    noise = wcv(v[half:], w[half:])
    thr = max(t, rho*noise)
    for end in range(max(wmin, window), min(wmax, n-1)+1):
        start = end - window
        vec = [wcv(v[start:x+1], w[start:x+1]) for x in range(start+1, end+1)]
        if all(math.isfinite(x) for x in vec) and max(vec)-min(vec) <= thr:
            return start, True
    return 0, False

def forks(path):
    d = json.load(open(path))
    for b in d['benchmarks']:
        for side in ('base', 'head'):
            for f in b.get(side, {}).get('forks', []):
                yield [t/i for t, i in zip(f['times_ns'], f['iters'])], f['iters']

path = sys.argv[1]
inject = float(sys.argv[sys.argv.index('--inject')+1]) if '--inject' in sys.argv else None
all_forks = list(forks(path))
print(f"{len(all_forks)} forks")
for t in (0.01, 0.02):
    for rho in (0.0, 0.5, 1.0, 1.5, 2.0):
        uns = 0; dropped = 0; hit = 0
        for v, w in all_forks:
            s, ok = detect(v, w, t, rho)
            uns += not ok; dropped += s
            if inject:
                v2 = [x*(1+inject) if i < 5 else x for i, x in enumerate(v)]
                s2, ok2 = detect(v2, w, t, rho)
                hit += ok2 and s2 >= 4
        n = len(all_forks)
        line = f"t={t:.2f} rho={rho:.1f}: unsteady {uns/n:6.1%}  mean dropped {dropped/n:5.2f}"
        if inject: line += f"  injected {inject:.0%} warm-up (5 samples) detected {hit/n:6.1%}"
        print(line)
