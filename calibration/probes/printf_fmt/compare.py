#!/usr/bin/env python3
"""printf_fmt: the device's printf lines against warpsim's (predictions.txt), line by line in
order, then as sorted sets (the device's order across printf calls is not defined).

    python3 compare.py DEVICE.txt PREDICTIONS.txt
"""
import sys


def main():
    dev = open(sys.argv[1]).read().splitlines()
    pred = open(sys.argv[2]).read().splitlines()
    same_order = dev == pred
    sd, sp = sorted(dev), sorted(pred)
    print(f"device {len(dev)} lines, warpsim {len(pred)}; same text in the same order: {same_order}")
    print(f"same lines as a set: {sd == sp}")
    dset = set(dev)
    bad = [p for p in pred if p not in dset]
    print(f"warpsim lines the device did not print: {len(bad)}")
    extra = [d for d in dev if d not in set(pred)]
    for p in bad[:40]:
        # The device line for the same lane and call (same first 5 characters).
        d = next((x for x in extra if x[:5] == p[:5]), "(none)")
        print(f"  warpsim: {p}\n  device:  {d}")


if __name__ == "__main__":
    main()
