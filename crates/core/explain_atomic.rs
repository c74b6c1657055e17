//! `warpsim explain --op atom.OP|red.OP`: how the banks serve one warp's shared atomic — the
//! lanes queued on each bank of a native `ATOMS`, or the trips of a compare-and-swap loop.

use warpsim_smem::{analyze_atomic, Atomic, Form, Geometry, WARP};

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
        Form::Native(per) => {
            out += &format!(
                "one ATOMS: lanes never share a word, each queues on its bank{}\n",
                if per == 2 {
                    "; cas costs 2 wavefronts a lane queued"
                } else {
                    ""
                }
            );
            for p in a.phases.iter().filter(|p| p.active != 0) {
                out += &format!(
                    "phase at lane {}: {} wavefronts\n",
                    p.first_lane, p.wavefronts
                );
                let most = p.queues.iter().map(Vec::len).max().unwrap_or(0);
                for (b, q) in p.queues.iter().enumerate().filter(|(_, q)| !q.is_empty()) {
                    let mark = if q.len() == most && most > 1 {
                        "  <- longest queue"
                    } else {
                        ""
                    };
                    let l: Vec<String> = q.iter().map(u32::to_string).collect();
                    out += &format!(
                        "  bank {b:>3}: {} lane(s): {}{mark}\n",
                        q.len(),
                        l.join(" ")
                    );
                }
            }
        }
        Form::CasLoop => {
            out += "a compare-and-swap loop (load, then ATOMS.CAST.SPIN): each trip, each bank \
                    serves its lowest waiting lane\n";
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
    }
    let c = a.cost;
    out += &format!(
        "atom wavefronts: {}\natom bank conflicts: {}\n",
        c.atom.wavefronts, c.atom.conflicts
    );
    if a.form == Form::CasLoop {
        out += &format!(
            "load wavefronts: {} ({} bank conflicts)\ntrips (ATOMS executed): {}\n",
            c.loads.wavefronts, c.loads.conflicts, c.trips
        );
    }
    Ok(out)
}
