"""``Report``: what a run found (the JSON report of ``warpsim run --format json``)."""

import html
import json

#: The columns of ``Report.lines``, from each memory instruction of the JSON report.
LINE_COLUMNS = [
    "line",
    "col",
    "text",
    "space",
    "op",
    "array",
    "width",
    "executions",
    "lanes",
    "wavefronts",
    "bank_conflicts",
    "ideal_wavefronts",
    "conflict_degree",
    "atomic",
    "stall_cycles",
]


def _frame(rows, columns=None):
    """A pandas DataFrame of ``rows`` when pandas is installed, else the list itself."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows, columns=columns)


class Report:
    """A run's report.

    * ``shared``: the shared-memory counters (wavefronts, bank conflicts and instructions of
      loads, stores and atomics), a dict as the JSON report's ``shared``.
    * ``timing``: the JSON report's ``timing`` (None with ``timing=False``).
    * ``lines``: one row per memory instruction (source line, text, counters), a pandas
      DataFrame when pandas is installed, else a list of dicts.
    * ``verified``: True, False, or None (nothing to check, or ``verify=False``).
    * ``to_dict()``: the whole report, exactly ``warpsim run --format json``.
    * ``svg()``: the per-bank chart; ``table()``: the CLI's table.
    """

    def __init__(self, native):
        self._native = native
        self._dict = json.loads(native.json())

    @property
    def shared(self):
        return dict(self._dict["shared"])

    @property
    def timing(self):
        t = self._dict.get("timing")
        return None if t is None else json.loads(json.dumps(t))

    @property
    def verified(self):
        return self._dict.get("verified")

    @property
    def kernel(self):
        return self._dict.get("kernel")

    @property
    def lines(self):
        rows = []
        for inst in self._dict["per_instruction"]:
            row = {k: inst.get(k) for k in LINE_COLUMNS if k != "stall_cycles"}
            stalls = inst.get("stalls")
            row["stall_cycles"] = None if stalls is None else sum(stalls.values())
            rows.append(row)
        return _frame(rows, LINE_COLUMNS)

    def to_dict(self):
        """The report as a dict: exactly what ``warpsim run --format json`` prints."""
        return json.loads(json.dumps(self._dict))

    def to_json(self):
        """The report as ``warpsim run --format json`` prints it."""
        return self._native.json()

    def svg(self):
        """The chart of the per-bank load and the hottest shared instructions (SVG text)."""
        return self._native.svg()

    def table(self):
        """The report as ``warpsim run`` prints it."""
        return self._native.table(False)

    def __str__(self):
        return self.table()

    def __repr__(self):
        s = self._dict["shared"]
        t = self._dict.get("timing")
        time = "" if t is None else f", {t.get('duration_ns', 0):.0f} ns"
        return (
            f"<warpsim.Report {self.kernel}: {s['ld_bank_conflicts']} load and "
            f"{s['st_bank_conflicts']} store bank conflicts{time}, verified={self.verified}>"
        )

    def _repr_html_(self):
        """A notebook's view: the counters, the time, the costliest lines and the chart."""
        e = html.escape
        s = self._dict["shared"]
        rows = "".join(f"<tr><td>{e(k)}</td><td>{v}</td></tr>" for k, v in s.items())
        t = self._dict.get("timing")
        if t is not None:
            for k in ("elapsed_cycles", "duration_ns"):
                if k in t:
                    rows += f"<tr><td>{e(k)}</td><td>{t[k]}</td></tr>"
        rows += f"<tr><td>verified</td><td>{e(str(self.verified))}</td></tr>"
        head = "".join(f"<th>{e(c)}</th>" for c in LINE_COLUMNS)
        body = ""
        lines = self.lines
        records = lines.to_dict("records") if hasattr(lines, "to_dict") else lines
        for r in records:
            body += "<tr>" + "".join(f"<td>{e(str(r[c]))}</td>" for c in LINE_COLUMNS) + "</tr>"
        try:
            chart = self.svg()
        except Exception as err:  # the chart is a bonus: say why it is missing
            chart = f"<p>(no chart: {e(str(err))})</p>"
        return (
            f"<div><b>warpsim: {e(str(self.kernel))}</b>"
            f"<table>{rows}</table>"
            f"<table><tr>{head}</tr>{body}</table>{chart}</div>"
        )
