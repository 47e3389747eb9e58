#!/usr/bin/env python3
"""Where base and head put the functions they share, layout by layout: no timing, no noise.

For a repository compared by cargo-perfdiff (its kept executables in
$CARGO_TARGET_DIR/perfdiff/ws-*/bin/<commit>/, layout 0 in the directory itself, layout k in
layout-k/), reads the text symbols of base's (HEAD~1) and head's (HEAD) executable of each
layout with nm, leaves out the functions that share an address with another (LLVM merged them;
where one side merged and the other did not, the function sits elsewhere by design) and those
only one side has, and prints per layout:

  shared     functions both sides have;
  next       share of them whose next shared function in address order is the same on both
             sides (1.00: the shared code is in the same relative order);
  line       share of them at the same offset in a 64-byte cache line on both sides;
  page       share of them at the same offset in a 4 KiB page;
  moved      median distance between a function's address on the two sides, in bytes;

and, for each PATTERN given, the functions whose name contains it: offset in the cache line on
each side.

Usage: scripts/layout_addresses.py TARGET_DIR REPO [PATTERN...]
"""
import collections
import glob
import os
import statistics
import subprocess
import sys


def functions(executable):
    """{name: address} of the text symbols no other symbol shares an address with."""
    out = subprocess.run(["nm", executable], capture_output=True, text=True, check=True).stdout
    by_address = collections.defaultdict(list)
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in ("t", "T"):
            by_address[int(fields[0], 16)].append(fields[2])
    return {names[0]: a for a, names in by_address.items() if len(names) == 1}


def executable(bin_dir, layout):
    directory = bin_dir if layout == 0 else os.path.join(bin_dir, f"layout-{layout}")
    files = [f for f in glob.glob(os.path.join(directory, "*"))
             if os.path.isfile(f) and os.access(f, os.X_OK) and "." not in os.path.basename(f)]
    return files[0] if files else None


def main(target_dir, repo, patterns):
    rev = lambda r: subprocess.run(["git", "-C", repo, "rev-parse", r], capture_output=True,
                                   text=True, check=True).stdout.strip()
    base, head = rev("HEAD~1"), rev("HEAD")
    bins = glob.glob(os.path.join(target_dir, "perfdiff", "ws-*", "bin", base))
    bins = [b for b in bins if os.path.isdir(os.path.join(os.path.dirname(b), head))]
    if not bins:
        sys.exit(f"no kept builds of {base[:9]} and {head[:9]} under {target_dir}")
    base_bin = bins[0]
    head_bin = os.path.join(os.path.dirname(base_bin), head)
    print(f"{'layout':>6} {'shared':>6} {'next':>5} {'line':>5} {'page':>5} {'moved':>8}")
    for layout in range(0, 64):
        b_exe, h_exe = executable(base_bin, layout), executable(head_bin, layout)
        if not b_exe or not h_exe:
            break
        b, h = functions(b_exe), functions(h_exe)
        shared = sorted(set(b) & set(h), key=b.get)
        h_order = sorted(shared, key=h.get)
        h_next = {f: n for f, n in zip(h_order, h_order[1:])}
        same_next = sum(1 for f, n in zip(shared, shared[1:]) if h_next.get(f) == n)
        line = sum(1 for f in shared if b[f] % 64 == h[f] % 64)
        page = sum(1 for f in shared if b[f] % 4096 == h[f] % 4096)
        moved = statistics.median(abs(h[f] - b[f]) for f in shared)
        n = len(shared)
        print(f"{layout:>6} {n:>6} {same_next / (n - 1):>5.2f} {line / n:>5.2f} {page / n:>5.2f} "
              f"{moved:>8.0f}")
        for pattern in patterns:
            for f in (f for f in shared if pattern in f):
                print(f"{'':>6} {pattern}: {f[:60]}… base +{b[f] % 64}, head +{h[f] % 64}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
