"""calibration/draws/swizzle: what draw2.py and draw3.py share: draw sizes for a table of templates
and write the launch list."""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))


def draw(seed, table, suffix, out):
    """For each (template, name pattern, N step, N min, N max, draws, regs, twin template or
    None) of `table`, `draws` sizes from random.Random(seed); a twin's name is the launch's
    without `suffix`. Writes `out` (name, template, n, regs_per_thread) beside this file."""
    rng = random.Random(seed)
    rows = []
    for tpl, name, step, lo, hi, k, regs, twin in table:
        for _ in range(k):
            n = rng.randrange(lo // step, hi // step + 1) * step
            rows.append((name.format(n), tpl, n, regs))
            if twin:
                rows.append((name.format(n).replace(suffix, ""), twin, n, regs))
    with open(os.path.join(HERE, out), "w") as f:
        f.write("name\ttemplate\tn\tregs_per_thread\n")
        for r in rows:
            f.write("%s\t%s\t%d\t%d\n" % r)
    print("\n".join("%s\t%s\t%d\t%d" % r for r in rows))
