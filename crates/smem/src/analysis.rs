//! [`analyze`]: one access with every phase, bank, word and lane spelled out.

use crate::*;
use serde::Serialize;

/// One word that a bank delivered in one cycle of a phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// The cycle within the phase (0-based).
    pub cycle: u32,
    /// The bank.
    pub bank: u32,
    /// The word index (byte address / bank_bytes).
    pub word: u64,
    /// The lanes that asked for this word (bit `l` = lane `l`).
    pub lanes: u32,
}

/// One phase of an access, spelled out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Phase {
    /// First lane of the phase.
    pub first_lane: u32,
    /// Number of lanes the phase holds.
    pub lanes: u32,
    /// The active lanes in the phase (bit `l` = lane `l`).
    pub active: u32,
    /// Cycles this phase took (0 if no lane was active).
    pub wavefronts: u32,
    /// Every word served, in cycle order then bank order.
    pub slots: Vec<Slot>,
    /// For each bank, the distinct words it served.
    pub per_bank: Vec<u32>,
}

/// One access, spelled out phase by phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The totals, equal to [`cost`]'s.
    pub cost: Cost,
    /// Lanes per phase after rule 3.
    pub lanes_per_phase: u32,
    /// Whether rule 3 doubled the phase.
    pub doubled: bool,
    /// The phases, in lane order.
    pub phases: Vec<Phase>,
}

/// Prices one access like [`cost`] and says how: which words each bank served in which cycle.
///
/// Within a phase, a bank serves its distinct words one a cycle in the order their first
/// lanes come; every lane that asked for a word is served with it.
pub fn analyze(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<Analysis, Error> {
    start(geom, width)?;
    aligned(width, addrs, mask)?;
    let base = geom.lanes_per_phase(width);
    let lanes = if mask == 0 {
        base
    } else {
        phase_lanes(geom, op, width, addrs, mask)
    };
    let mut phases = Vec::new();
    let mut cost = Cost::default();
    let mut start = 0u32;
    while start < WARP as u32 {
        let end = (start + lanes).min(WARP as u32);
        let mut slots: Vec<Slot> = Vec::new();
        let mut per_bank = vec![0u32; geom.banks as usize];
        let mut active = 0u32;
        for l in start..end {
            if mask & (1 << l) == 0 {
                continue;
            }
            active |= 1 << l;
            let a = addrs[l as usize] as u64;
            let first = a / geom.bank_bytes as u64;
            let last = (a + width as u64 - 1) / geom.bank_bytes as u64;
            for w in first..=last {
                let bank = (w % geom.banks as u64) as u32;
                if let Some(s) = slots.iter_mut().find(|s| s.word == w) {
                    s.lanes |= 1 << l;
                } else {
                    let cycle = per_bank[bank as usize];
                    per_bank[bank as usize] += 1;
                    slots.push(Slot {
                        cycle,
                        bank,
                        word: w,
                        lanes: 1 << l,
                    });
                }
            }
        }
        slots.sort_by_key(|s| (s.cycle, s.bank));
        let wavefronts = per_bank.iter().copied().max().unwrap_or(0);
        if active != 0 {
            cost.phases += 1;
            cost.wavefronts += wavefronts;
        }
        phases.push(Phase {
            first_lane: start,
            lanes: end - start,
            active,
            wavefronts,
            slots,
            per_bank,
        });
        start = end;
    }
    cost.conflicts = cost.wavefronts - cost.phases;
    Ok(Analysis {
        cost,
        lanes_per_phase: lanes,
        doubled: lanes != base,
        phases,
    })
}
