//! `warpsim explain --op atom.OP|red.OP`: how the banks serve one warp's shared atomic — the
//! lanes queued on each bank of a native `ATOMS`, or the trips of a compare-and-swap loop.

use warpsim_smem::{analyze_atomic, AtomPhase, Atomic, Form, Geometry, WARP};

/// Width of the row labels (`visit 31`).
const LABEL: usize = 9;

/// Lanes of a mask, as `0 1 2 …` (or `-` for none).
fn lanes(m: u32) -> String {
    if m == 0 {
        return "-".into();
    }
    let v: Vec<String> = (0..WARP)
        .filter(|l| m >> l & 1 != 0)
        .map(|l| l.to_string())
        .collect();
    v.join(" ")
}

/// Prices and draws one atomic; `head` is the first line (the expression).
pub fn render(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    head: &str,
    addrs: &[u32; WARP],
    mask: u32,
) -> miette::Result<String> {
    let a = analyze_atomic(geom, atomic, width, addrs, mask).map_err(|e| miette::miette!("{e}"))?;
    let mut out = format!("{atomic} of {width} bytes a lane at element {head}\n");
    out += &format!(
        "{} banks of {} B; {} of 32 lanes active\n",
        geom.banks,
        geom.bank_bytes,
        mask.count_ones()
    );
    match a.form {
        Form::Native(_) | Form::Popc => {
            out += &match a.form {
                Form::Popc => "one ATOMS.POPC.INC: the lanes on one address are one visit to \
                               its bank\n(their count added once); distinct addresses on one \
                               bank queue\n"
                    .to_string(),
                Form::Native(2) => "one ATOMS: lanes never share a word, each queues on its \
                                    bank; cas costs 2 wavefronts a lane queued\n"
                    .to_string(),
                _ => "one ATOMS: lanes never share a word, each queues on its bank\n".to_string(),
            };
            for p in a.phases.iter().filter(|p| p.active != 0) {
                out += &phase_grid(geom, p);
            }
            out += "\ncells: the lane a bank serves at each visit, in queue order; *N: N lanes \
                    on one\naddress served in one visit (ATOMS.POPC.INC only); .: idle\n\n";
        }
        Form::CasLoop | Form::TriedCasLoop => {
            if a.form == Form::TriedCasLoop {
                out += "a generic ATOM.E try first (1 atom wavefront: it does nothing on \
                        shared memory),\nthen ";
            }
            out += "a compare-and-swap loop (load, then ATOMS.CAST.SPIN): each trip, each \
                    bank\nserves its lowest waiting lane (every update assumed to change its \
                    word)\n";
            for (i, t) in a.trips.iter().enumerate() {
                out += &format!(
                    "trip {:>2}: load {} wavefront(s) for lanes {}; served {}; done {}\n",
                    i + 1,
                    t.load.wavefronts,
                    lanes(t.left),
                    lanes(t.tried),
                    lanes(t.done)
                );
            }
        }
        Form::WordCasLoop => {
            out += "a generic load of each lane's word, then a loop of ATOM.E.CAS on the \
                    whole word:\neach trip every lane left tries (priced as a 4-byte cas) and \
                    one lane of each\nword succeeds\n";
            for (i, t) in a.trips.iter().enumerate() {
                out += &format!(
                    "trip {:>2}: lanes {} try; done {}\n",
                    i + 1,
                    lanes(t.tried),
                    lanes(t.done)
                );
            }
        }
    }
    let c = a.cost;
    out += &format!(
        "atom wavefronts: {}\natom bank conflicts: {}\n",
        c.atom.wavefronts, c.atom.conflicts
    );
    if !matches!(a.form, Form::Native(_) | Form::Popc) {
        out += &format!(
            "load wavefronts: {} ({} bank conflicts)\ntrips (ATOMS executed): {}\n",
            c.loads.wavefronts, c.loads.conflicts, c.trips
        );
    }
    Ok(out)
}

/// One phase of a native atomic as a grid: a column per bank (bands of 16, or 8 when bank
/// numbers need 4 digits; runs of idle bands folded), a row per visit, the lane served.
fn phase_grid(geom: &Geometry, p: &AtomPhase) -> String {
    let lanes = p.active.count_ones();
    let (longest, most) = p
        .queues
        .iter()
        .enumerate()
        .map(|(b, q)| (b, q.len()))
        .max_by_key(|&(b, n)| (n, std::cmp::Reverse(b)))
        .unwrap_or((0, 0));
    let mut out = format!(
        "\nphase at lane {}: {lanes} lane{} active, {} wavefront{}; longest queue: bank {longest}, \
         {most} visit{}\n",
        p.first_lane,
        if lanes == 1 { "" } else { "s" },
        p.wavefronts,
        if p.wavefronts == 1 { "" } else { "s" },
        if most == 1 { "" } else { "s" },
    );
    let cell = (geom.banks.saturating_sub(1).to_string().len()).max(3);
    let band = if cell <= 3 { 16 } else { 8 };
    let mut idle_from = None;
    for first in (0..geom.banks as usize).step_by(band) {
        let banks = first..(first + band).min(geom.banks as usize);
        let depth = p.queues[banks.clone()]
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        if depth == 0 {
            idle_from.get_or_insert(first);
            if banks.end == geom.banks as usize {
                out += &idle(idle_from.take().unwrap_or(first), banks.end);
            }
            continue;
        }
        if let Some(from) = idle_from.take() {
            out += &idle(from, first);
        }
        out += &format!("{:>LABEL$}", "bank");
        for b in banks.clone() {
            out += &format!(" {b:>cell$}");
        }
        out.push('\n');
        for v in 0..depth {
            out += &format!("{:>LABEL$}", format!("visit {v}"));
            for b in banks.clone() {
                let text = match (p.queues[b].get(v), p.served[b].get(v)) {
                    (Some(_), Some(&n)) if n > 1 => format!("*{n}"),
                    (Some(l), _) => l.to_string(),
                    _ => ".".to_string(),
                };
                out += &format!(" {text:>cell$}");
            }
            out.push('\n');
        }
    }
    out
}

/// The line for banks `from..to` that serve nothing in a phase.
fn idle(from: usize, to: usize) -> String {
    if to - from == 1 {
        format!("{:>LABEL$} {from}: idle\n", "bank")
    } else {
        format!("{:>LABEL$} {from}-{}: idle\n", "banks", to - 1)
    }
}
