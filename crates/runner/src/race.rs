//! The race report (`warpsim run --racecheck`): the executor's hazards
//! ([`warpsim_exec`]) with their source lines, array and index.

use serde::Serialize;
use std::fmt::Write;
use warpsim_exec::{self as race, Hazard, Races};
use warpsim_kernel::Program;
use warpsim_smem::Op;

/// One side of a race: an access by one thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RaceAccess {
    /// `ld` or `st`.
    pub op: Op,
    /// `file:line` of the instruction.
    pub location: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The source it implements.
    pub text: String,
    /// Its index in the lowered code.
    pub pc: usize,
    /// The thread (`tid`) of the first example.
    pub thread: [u32; 3],
    /// Its warp in the block.
    pub warp: u32,
}

/// One hazard: a pair of instructions of different warps touching one shared word within a
/// barrier interval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RaceReport {
    /// `RAW`, `WAR` or `WAW`, in the order the emulator met the two accesses (which on a
    /// GPU may be either).
    pub kind: String,
    /// The shared array (empty if the word is not in one).
    pub array: String,
    /// The logical index of the first example, outermost first.
    pub index: Vec<u32>,
    /// `array[i][j]`.
    pub element: String,
    /// The access the emulator met first (the write of a RAW or WAW, the read of a WAR).
    pub first: RaceAccess,
    /// The access of another warp that conflicts with it.
    pub second: RaceAccess,
    /// The block (`ctaid`) of the first example.
    pub block: [u32; 3],
    /// Occurrences over the run, one per thread and 32-bit word.
    pub count: u64,
}

fn thread_xyz(block: [u32; 3], t: u32) -> [u32; 3] {
    let bx = block[0].max(1);
    let by = block[1].max(1);
    [t % bx, t / bx % by, t / (bx * by)]
}

fn access(prog: &Program, s: &race::Side) -> RaceAccess {
    let pc = s.pc as usize;
    let info = prog.info.get(pc);
    let line = info.map_or(0, |i| i.line);
    RaceAccess {
        op: if s.store { Op::St } else { Op::Ld },
        location: format!("{}:{line}", prog.path),
        line,
        col: info.map_or(0, |i| i.col),
        text: info.map_or_else(String::new, |i| i.text.to_string()),
        pc,
        thread: thread_xyz(prog.block, s.thread),
        warp: s.thread / 32,
    }
}

fn report(prog: &Program, h: &Hazard) -> RaceReport {
    let (array, index) = match race::locate(prog, h.word) {
        Some((k, idx)) => (prog.shared[k].name.clone(), idx),
        None => (String::new(), Vec::new()),
    };
    let element = if array.is_empty() {
        format!("shared word {} (byte {})", h.word, h.word as u64 * 4)
    } else {
        let mut e = array.clone();
        for i in &index {
            let _ = write!(e, "[{i}]");
        }
        e
    };
    RaceReport {
        kind: h.kind.name().to_owned(),
        array,
        index,
        element,
        first: access(prog, &h.first),
        second: access(prog, &h.second),
        block: h.block,
        count: h.count,
    }
}

/// The hazards of a run, sorted by the lines of their accesses, then kind.
pub(crate) fn reports(prog: &Program, races: &Races) -> Vec<RaceReport> {
    let mut v: Vec<RaceReport> = races.hazards.iter().map(|h| report(prog, h)).collect();
    v.sort_by(|a, b| {
        (
            a.first.line,
            a.second.line,
            a.first.pc,
            a.second.pc,
            &a.kind,
        )
            .cmp(&(
                b.first.line,
                b.second.line,
                b.first.pc,
                b.second.pc,
                &b.kind,
            ))
    });
    v
}

fn xyz(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// The table's racecheck section (empty when races were not looked for).
pub(crate) fn section(races: Option<&[RaceReport]>) -> String {
    let Some(races) = races else {
        return String::new();
    };
    let mut o = String::new();
    if races.is_empty() {
        let _ = writeln!(o, "racecheck: no hazards\n");
        return o;
    }
    let count = |k: &str| races.iter().filter(|r| r.kind == k).count();
    let _ = writeln!(
        o,
        "racecheck: {} hazard{} ({} RAW, {} WAR, {} WAW) between warps of a block within a \
         barrier interval",
        races.len(),
        if races.len() == 1 { "" } else { "s" },
        count("RAW"),
        count("WAR"),
        count("WAW"),
    );
    if count("ASYNC") > 0 {
        let _ = writeln!(
            o,
            "  and {} ASYNC: an access to a cp.async destination before the wait_group that \
             completes its copy",
            count("ASYNC")
        );
    }
    if count("PROXY") > 0 {
        let _ = writeln!(
            o,
            "  and {} PROXY: a wgmma or TMA read (async proxy) of shared memory a thread stored \
             without fence.proxy.async since: the GPU may read the old value",
            count("PROXY")
        );
    }
    for r in races {
        let _ = writeln!(
            o,
            "  {} hazard on {}: {} time{}, first in block {}",
            r.kind,
            r.element,
            r.count,
            if r.count == 1 { "" } else { "s" },
            xyz(r.block)
        );
        for a in [&r.first, &r.second] {
            let what = match a.op {
                Op::St => "write",
                Op::Ld => "read ",
            };
            let _ = writeln!(
                o,
                "    {what} at {}:{}  by thread {} (warp {})  {}",
                a.location,
                a.col,
                xyz(a.thread),
                a.warp,
                a.text
            );
        }
    }
    if count("ASYNC") > 0 {
        let _ = writeln!(
            o,
            "  (ASYNC: wait for the copy's group first: cp.async.wait_group N or \
             __pipeline_wait_prior(N) with N small enough)"
        );
    }
    if count("PROXY") > 0 {
        let _ = writeln!(
            o,
            "  (PROXY: after the stores, fence.proxy.async.shared::cta in every storing thread \
             (CUTLASS: fence_view_async_shared()), then the barrier, then the wgmma or TMA store)"
        );
    }
    let _ = writeln!(
        o,
        "  (put a Barrier between the two accesses, or let one warp do both)\n"
    );
    o
}
