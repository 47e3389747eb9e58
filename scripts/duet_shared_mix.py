#!/usr/bin/env python3
"""A run that leaves duet: the error control of one t interval over mixed rounds.

Seeded simulation behind docs/design/duet.md ("When the two CPUs are shared"). Each round gives
one log ratio; duet rounds and interleaved rounds have different spreads (sd_duet, sd_inter).
A run of 10 rounds leaves duet after round `k` (1-based): rounds 1..k-1 are duet, round k is
set aside, rounds k+1..10 interleaved. The verdict's interval is the 99 % paired t interval over
the analysed rounds' log ratios, as in the tool (no stop rule: the fixed 10 rounds).

It prints, per case, the share of A/A runs whose interval excludes 1 (a false alarm: must stay
near 1 %), the share of +10 % runs whose interval lies above 1 (found), and the same with the
shared round left in (what setting it aside buys). Usage: python3 scripts/duet_shared_mix.py
"""
import math
import random
import statistics

# Student's t, two-sided 99 % (0.995 quantile), by degrees of freedom.
T995 = {1: 63.657, 2: 9.925, 3: 5.841, 4: 4.604, 5: 4.032, 6: 3.707, 7: 3.499, 8: 3.355, 9: 3.250}


def interval(values):
    n = len(values)
    mean = statistics.fmean(values)
    half = T995[n - 1] * statistics.stdev(values) / math.sqrt(n)
    return mean - half, mean + half


def run(rng, change, k, sd_duet, sd_inter, sd_shared, keep_shared):
    truth = math.log(1 + change)
    values = []
    for r in range(1, 11):
        if r < k:
            values.append(rng.gauss(truth, sd_duet))
        elif r == k:
            if keep_shared:
                # Preempted at moments its partner is not: a wide, unbiased disturbance.
                values.append(rng.gauss(truth, sd_shared))
        else:
            values.append(rng.gauss(truth, sd_inter))
    return interval(values)


def shares(change, k, sd_duet, sd_inter, sd_shared=0.5, keep_shared=False, reps=20000, seed=1):
    rng = random.Random(seed)
    excluded = above = 0
    for _ in range(reps):
        low, high = run(rng, change, k, sd_duet, sd_inter, sd_shared, keep_shared)
        excluded += low > 0 or high < 0
        above += low > 0
    return excluded / reps, above / reps


def main():
    print("k  sd_duet sd_inter | A/A false alarms | +10 % found | +10 % found, shared round kept")
    for k in (1, 2, 5, 9):
        for sd_duet, sd_inter in ((0.02, 0.02), (0.005, 0.03), (0.03, 0.005)):
            aa, _ = shares(0.0, k, sd_duet, sd_inter)
            _, found = shares(0.10, k, sd_duet, sd_inter)
            _, found_kept = shares(0.10, k, sd_duet, sd_inter, keep_shared=True)
            print(f"{k}  {sd_duet:<7} {sd_inter:<8} | {aa:16.2%} | {found:11.1%} | {found_kept:10.1%}")


if __name__ == "__main__":
    main()
