//! The shared part of a global access: the L2's record of sectors and the DRAM calendar, the
//! only state of global memory that SMs share. An SM's own part (its queue, its global path,
//! a store's acknowledgement) is priced where it issues ([`super::cycle::issue`]); this part
//! is priced in the order of the accesses' cycles, then SMs, then issue order within a
//! visit, either as each issues or at the end of a window ([`super::window`]).

use super::dram::Dram;
use warpsim_machine::GlobalMem;

/// Prices the shared part of a global access sent at cycle `d` over sectors `secs` (a store
/// if `store`) by an SM whose DRAM read cursor is `read_free`, and returns when a load's data
/// is there (no sooner than `d` plus an L2 hit). `shadow` (sampled timing): the sectors of the
/// same access by the blocks not simulated that this one stands for, each block's after a
/// [`SHADOW`] mark, asked at the same cycle by the SMs those blocks would run on (each at its
/// own read rate: `shadow_free`, a cursor per such block's place); nobody waits for them, but
/// they take the DRAM's time and bring their sectors into L2.
#[allow(clippy::too_many_arguments)]
pub(super) fn shared(
    g: &GlobalMem,
    l2: &mut [Vec<u32>],
    dram: &mut Dram,
    read_free: &mut f64,
    shadow_free: &mut Vec<f64>,
    d: u64,
    store: bool,
    secs: &[u64],
    shadow: &[u64],
) -> u64 {
    // This SM reads DRAM at most at its own rate; the GPU's bandwidth goes to whichever SMs
    // ask ([`super::dram`]), for reads and write-backs alike.
    let per_sector_sm = g.sector_bytes as f64 / g.sm_read_bytes_per_cycle;
    let mut done = d + g.l2_hit as u64;
    for &id in secs {
        let (buf, sec) = split(id);
        // When the sector's data is in L2 (+1; 0: nothing has asked for it yet).
        let Some(at) = l2.get_mut(buf).and_then(|b| b.get_mut(sec as usize)) else {
            continue;
        };
        if *at == 0 || store {
            let st = read_free.max(d as f64);
            *read_free = st + per_sector_sm;
            let start = dram.take(ceil(st), id);
            if *at == 0 {
                *at = arrival(g, dram, id, store, d, start);
            }
        }
        if !store {
            // In L2, or on its way there for an earlier request (of any SM).
            done = done.max(*at as u64 - 1);
        }
    }
    if shadow.is_empty() {
        return done;
    }
    // The sectors of one chunk that one block sends to DRAM are booked together.
    let mut run: Option<Run> = None;
    let mut j = 0usize;
    for (i, &id) in shadow.iter().enumerate() {
        if id == SHADOW {
            book(g, l2, dram, shadow_free, d, store, shadow, run.take());
            j = if i == 0 { 0 } else { j + 1 };
            continue;
        }
        let (buf, sec) = split(id);
        let Some(&at) = l2.get(buf).and_then(|b| b.get(sec as usize)) else {
            continue;
        };
        if at != 0 && !store {
            continue;
        }
        let chunk = dram.chunk(id);
        match &mut run {
            Some(r) if r.chunk == chunk => r.n += 1,
            _ => {
                book(g, l2, dram, shadow_free, d, store, shadow, run.take());
                run = Some(Run {
                    first: id,
                    chunk,
                    n: 1,
                    at: i,
                    block: j,
                });
            }
        }
    }
    book(g, l2, dram, shadow_free, d, store, shadow, run);
    done
}

/// Marks the start of each shadow block's sectors in an access's shadow list
/// ([`crate::BlockTrace::take_shadows`]).
pub const SHADOW: u64 = u64::MAX;

/// Sectors of one chunk that one shadow block sends to DRAM ([`shared`]).
struct Run {
    first: u64,
    chunk: u64,
    n: u32,
    /// Where the run starts in the shadow list.
    at: usize,
    /// The shadow block's place (its read cursor).
    block: usize,
}

/// Books `run` at the DRAM, no sooner than its block's read cursor allows, and records the
/// arrival of its sectors in L2 (the run's last transfer's).
#[allow(clippy::too_many_arguments)]
fn book(
    g: &GlobalMem,
    l2: &mut [Vec<u32>],
    dram: &mut Dram,
    shadow_free: &mut Vec<f64>,
    d: u64,
    store: bool,
    shadow: &[u64],
    run: Option<Run>,
) {
    let Some(r) = run else {
        return;
    };
    if shadow_free.len() <= r.block {
        shadow_free.resize(r.block + 1, 0.0);
    }
    let per_sector_sm = g.sector_bytes as f64 / g.sm_read_bytes_per_cycle;
    let st = shadow_free[r.block].max(d as f64);
    shadow_free[r.block] = st + per_sector_sm * r.n as f64;
    let start = dram.take_n(ceil(st), r.first, r.n);
    // (The sectors of one chunk arrive alike.)
    let arrive = arrival(g, dram, r.first, store, d, start);
    for &id in &shadow[r.at..] {
        if id == SHADOW || dram.chunk(id) != r.chunk {
            break;
        }
        let (buf, sec) = split(id);
        if let Some(at) = l2.get_mut(buf).and_then(|b| b.get_mut(sec as usize)) {
            if *at == 0 {
                *at = arrive;
            }
        }
    }
}

/// The cycle a read cursor `t` (non-negative) has reached: its ceiling, without a call to
/// libm's.
#[inline]
fn ceil(t: f64) -> u64 {
    let c = t as u64;
    c + u64::from((c as f64) < t)
}

/// The L2 record of sector `id` asked at `d` whose DRAM transfer starts at `start`: a store's
/// data is in L2 when it arrives, a load's when DRAM returns it (+1: 0 is "never asked").
fn arrival(g: &GlobalMem, dram: &Dram, id: u64, store: bool, d: u64, start: u64) -> u32 {
    let arrive = if store {
        d
    } else {
        start + dram.latency(g, id)
    };
    arrive.min(u32::MAX as u64 - 1) as u32 + 1
}

/// A sector's buffer and its place in the buffer (the trace records `buffer << 48 | sector`).
#[inline]
pub(super) fn split(id: u64) -> (usize, u64) {
    ((id >> 48) as usize, id & ((1 << 48) - 1))
}
