//! Variants run side by side (`sweep`, `advise`) share one `--max-memory`: each reserves what it
//! keeps ([`resident_bytes`]: buffers, code, the timing model's record) and a fixed share of the limit
//! for the model's traces, and waits while the
//! variants running hold what it needs. A variant's share does not depend on how many run
//! beside it, so its result (and whether its traces fit) does not depend on the thread count.

use crate::{run, Report, RunOptions};
use std::sync::{Condvar, Mutex};
use warpsim_kernel::{BufferInfo, Diag, Program};

/// The part of `--max-memory` a variant's traces may take: one eighth (half of it for the
/// blocks being recorded, half for those being replayed).
const TRACE_SHARE: u64 = 8;

/// What a run of `prog` keeps besides the timing model's traces: the program's own
/// ([`Program::resident_bytes`]) and, with timing, the model's record
/// ([`warpsim_timing::model_bytes`]).
pub(crate) fn resident_bytes(prog: &Program, opts: &RunOptions) -> u64 {
    let model = match opts.timing {
        Some(_) => warpsim_timing::model_bytes(
            opts.machine.gpu(),
            prog.buffers.iter().map(BufferInfo::bytes),
            prog.code.len(),
        ),
        None => 0,
    };
    prog.resident_bytes().saturating_add(model)
}

/// What the variants running side by side have left of `--max-memory`.
pub(crate) struct Gate {
    cap: u64,
    free: Mutex<u64>,
    freed: Condvar,
}

impl Gate {
    /// A gate over `max_memory` bytes.
    pub(crate) fn new(max_memory: u64) -> Self {
        Gate {
            cap: max_memory,
            free: Mutex::new(max_memory),
            freed: Condvar::new(),
        }
    }

    /// Runs `prog` once its buffers and its share for traces are free (all of the limit at
    /// most: a variant that needs all of it runs alone), with `opts.max_memory` that much.
    pub(crate) fn run(&self, prog: &Program, opts: &RunOptions) -> Result<Report, Diag> {
        let want = resident_bytes(prog, opts)
            .saturating_add(self.cap / TRACE_SHARE)
            .min(self.cap);
        {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            while *free < want {
                free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
            *free -= want;
        }
        let r = run(
            prog,
            &RunOptions {
                max_memory: want,
                ..opts.clone()
            },
        );
        *self.free.lock().unwrap_or_else(|e| e.into_inner()) += want;
        self.freed.notify_all();
        r
    }
}
