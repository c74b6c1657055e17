//! The shared part of a global access: the L2's record of sectors and the DRAM calendar, the
//! only state of global memory that SMs share. An SM's own part (its queue, its global path,
//! a store's acknowledgement) is priced where it issues ([`super::cycle::issue`]); this part
//! is priced in the order of the accesses' cycles, then SMs, then issue order within a
//! visit, either as each issues or at the end of a window ([`super::window`]).

use super::dram::Dram;
use crate::preset::GlobalMem;

/// Prices the shared part of a global access sent at cycle `d` over sectors `secs` (a store
/// if `store`) by an SM whose DRAM read cursor is `read_free`, and returns when a load's data
/// is there (no sooner than `d` plus an L2 hit).
pub(super) fn shared(
    g: &GlobalMem,
    l2: &mut [Vec<u32>],
    dram: &mut Dram,
    read_free: &mut f64,
    d: u64,
    store: bool,
    secs: &[u64],
) -> u64 {
    // This SM reads DRAM at most at its own rate; the GPU's bandwidth goes to whichever SMs
    // ask ([`super::dram`]), for reads and write-backs alike.
    let per_sector_sm = g.sector_bytes as f64 / g.sm_read_bytes_per_cycle;
    let mut done = d + g.l2_hit as u64;
    let mut phantom = Phantoms::default();
    for &id in secs {
        let (buf, sec) = split(id);
        // When the sector's data is in L2 (+1; 0: nothing has asked for it yet).
        let Some(at) = l2.get_mut(buf).and_then(|b| b.get_mut(sec as usize)) else {
            continue;
        };
        if *at == 0 || store {
            let st = read_free.max(d as f64);
            *read_free = st + per_sector_sm;
            let start = dram.take(st.ceil() as u64, id);
            if g.phantoms > 0 {
                phantom.add(dram, g.phantoms, id, st.ceil() as u64);
            }
            if *at == 0 {
                // A store's data is in L2 when it arrives; a load's when DRAM returns it.
                let arrive = if store {
                    d
                } else {
                    start + dram.latency(g, id)
                };
                *at = arrive.min(u32::MAX as u64 - 1) as u32 + 1;
            }
        }
        if !store {
            // In L2, or on its way there for an earlier request (of any SM).
            done = done.max(*at as u64 - 1);
        }
    }
    phantom.flush(dram, g.phantoms);
    done
}

/// Sampled timing ([`crate::Gpu::sampled`]): each DRAM transfer of a simulated block stands
/// for `phantoms` more by the blocks not simulated, asked at the same cycle of chunks
/// elsewhere (sector `id + j << 40` for the j-th: another chunk, so another channel by the
/// hash). The transfers of one access to one chunk are booked together, at the cycle its
/// first is asked.
#[derive(Default)]
struct Phantoms {
    /// The run's first sector, its chunk, the cycle it was asked, and the sectors of the run.
    first: u64,
    chunk: Option<u64>,
    at: u64,
    n: u32,
}

impl Phantoms {
    fn add(&mut self, dram: &mut Dram, phantoms: u32, id: u64, at: u64) {
        let chunk = dram.chunk(id);
        if self.chunk == Some(chunk) {
            self.n += 1;
        } else {
            self.flush(dram, phantoms);
            *self = Phantoms {
                first: id,
                chunk: Some(chunk),
                at,
                n: 1,
            };
        }
    }

    fn flush(&mut self, dram: &mut Dram, phantoms: u32) {
        for j in 1..=phantoms as u64 {
            dram.take_n(self.at, self.first + (j << 40), self.n);
        }
        self.n = 0;
    }
}

/// A sector's buffer and its place in the buffer (the trace records `buffer << 48 | sector`).
#[inline]
pub(super) fn split(id: u64) -> (usize, u64) {
    ((id >> 48) as usize, id & ((1 << 48) - 1))
}
