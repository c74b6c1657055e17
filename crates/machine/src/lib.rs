//! The machine every warpsim command runs on: one GPU description, checked once.
//!
//! # Brief overview
//!
//! * [`Gpu`]: a GPU as a RON file describes it (`presets/h200.ron` is built in): SMs, clock,
//!   residency, the shared-memory banks and their width, latencies, bandwidths. Every field
//!   of the preset names where its value comes from.
//! * [`Machine`]: the GPU with the command line's bank geometry applied, resolved and
//!   validated in one place, [`Machine::resolve`] (or [`Machine::resolve_sweep`] for `warpsim
//!   sweep`, which compares several geometries). It gives every command what it needs: the
//!   bank geometry that prices shared accesses ([`Machine::geometry`]), the shared memory a
//!   block may use ([`Machine::shared_limit`]) and the description the timing model runs
//!   ([`Machine::gpu`]).
//! * [`MachineArgs`]: what a command is told about the machine (`--gpu`, `--banks`,
//!   `--bank-bytes`); with the `clap` feature, the flag group every command flattens.
//!
//! Nothing here runs a kernel or a model: the timing model (`warpsim-timing`) reads a [`Gpu`],
//! the executor a [`Geometry`], the loader a shared-memory limit.

// `Diag` carries the file's text and a span: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

mod check;
mod gpu;
mod locate;

pub use check::MAX_CYCLES;
pub use gpu::{
    Barrier, Compiler, GlobalMem, Gpu, IssueRate, Latency, LaunchCost, MemoryQueue, Residency,
    SharedPipe, AUTO_SAMPLE_MAX, AUTO_SAMPLE_MIN_SMS, AUTO_SAMPLE_WAVES, H200_RON,
    MAX_HOIST_WINDOW,
};

use warpsim_kernel::{Diag, Phase, MAX_SHARED_LIMIT};
use warpsim_smem::Geometry;

/// What a command is told about the machine: `--gpu NAME|FILE`, `--banks`, `--bank-bytes`.
///
/// A bank count or width not given is the GPU's. `warpsim sweep` takes several of each
/// ([`Machine::resolve_sweep`]); every other command one ([`Machine::resolve`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct MachineArgs {
    /// The GPU: a preset name (h200) or a RON description like
    /// crates/machine/presets/h200.ron. It gives the bank geometry, the shared memory a block
    /// may use and the timing model's machine.
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "NAME|FILE", default_value = "h200")
    )]
    pub gpu: String,
    /// Number of shared-memory banks, 1 to 1024 (default: the GPU's, 32 on the H200).
    /// `sweep`: a comma-separated list to compare.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub banks: Vec<u32>,
    /// Width of one bank in bytes: 4, 8, 16, 32 or 64 (default: the GPU's, 4 on the H200).
    /// `sweep`: a comma-separated list to compare.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub bank_bytes: Vec<u32>,
}

impl Default for MachineArgs {
    /// The H200 preset as it is.
    fn default() -> Self {
        MachineArgs {
            gpu: "h200".into(),
            banks: Vec::new(),
            bank_bytes: Vec::new(),
        }
    }
}

/// The GPU a command runs on, its bank geometry applied and checked: every value a command
/// reads of the machine comes from here.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The description, its `banks` and `bank_bytes` those in force.
    gpu: Gpu,
    /// What `--gpu` said (a preset name or a file), where errors about the machine point.
    source: String,
}

/// The machines of a sweep: one GPU and the bank counts and widths to combine, every
/// combination checked.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineSweep {
    /// The GPU, as described.
    pub base: Machine,
    /// The bank counts to try, in the order given.
    pub banks: Vec<u32>,
    /// The bank widths to try, in the order given.
    pub bank_bytes: Vec<u32>,
}

/// What an invalid geometry's error says to do.
const GEOMETRY_HELP: &str = "use --banks 1..=1024 and --bank-bytes 4, 8, 16, 32 or 64";

impl Machine {
    /// The built-in H200, as described.
    pub fn h200() -> Machine {
        Machine {
            gpu: Gpu::h200(),
            source: "h200".into(),
        }
    }

    /// The one machine `args` asks for: the GPU (a preset or a file), with the bank count
    /// and width given (each defaulting to the GPU's), checked. More than one count or width
    /// is an error: only `warpsim sweep` compares several ([`Machine::resolve_sweep`]).
    pub fn resolve(args: &MachineArgs) -> Result<Machine, Diag> {
        let sweep = Machine::resolve_sweep(args)?;
        let (banks, bank_bytes) = match (&sweep.banks[..], &sweep.bank_bytes[..]) {
            ([b], [w]) => (*b, *w),
            _ => {
                let (flag, values) = if sweep.banks.len() > 1 {
                    ("--banks", &sweep.banks)
                } else {
                    ("--bank-bytes", &sweep.bank_bytes)
                };
                let list: Vec<String> = values.iter().map(u32::to_string).collect();
                return Err(Diag::file(
                    Phase::Check,
                    &sweep.base.source,
                    format!("{flag} {}: this command runs one geometry", list.join(",")),
                    Some("give one value; `warpsim sweep` compares several".into()),
                ));
            }
        };
        sweep.base.with_geometry(banks, bank_bytes)
    }

    /// The machines `args` asks `warpsim sweep` to compare: the GPU and the lists of bank
    /// counts and widths (each defaulting to the GPU's one), every combination checked.
    pub fn resolve_sweep(args: &MachineArgs) -> Result<MachineSweep, Diag> {
        let base = Machine {
            gpu: Gpu::named_or_file(&args.gpu)?,
            source: args.gpu.clone(),
        };
        let or_gpu = |given: &[u32], gpu: u32| match given {
            [] => vec![gpu],
            _ => given.to_vec(),
        };
        let banks = or_gpu(&args.banks, base.gpu.banks);
        let bank_bytes = or_gpu(&args.bank_bytes, base.gpu.bank_bytes);
        for &b in &banks {
            for &w in &bank_bytes {
                base.with_geometry(b, w)?;
            }
        }
        Ok(MachineSweep {
            base,
            banks,
            bank_bytes,
        })
    }

    /// This machine with `banks` banks of `bank_bytes` bytes (the check of every geometry).
    pub fn with_geometry(&self, banks: u32, bank_bytes: u32) -> Result<Machine, Diag> {
        let g = Geometry::new(banks, bank_bytes).map_err(|e| {
            Diag::file(
                Phase::Check,
                &self.source,
                format!("invalid bank geometry: {e}"),
                Some(GEOMETRY_HELP.into()),
            )
        })?;
        let mut m = self.clone();
        m.gpu.banks = g.banks;
        m.gpu.bank_bytes = g.bank_bytes;
        Ok(m)
    }

    /// The GPU description (its bank geometry the one in force), which the timing model runs.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The bank geometry that prices every shared access.
    pub fn geometry(&self) -> Geometry {
        Geometry {
            banks: self.gpu.banks,
            bank_bytes: self.gpu.bank_bytes,
        }
    }

    /// Shared memory one block may use, in bytes: an SM's less what the system reserves per
    /// block (227 KiB on the H200), at most [`MAX_SHARED_LIMIT`].
    pub fn shared_limit(&self) -> u32 {
        let r = &self.gpu.residency;
        r.shared_bytes
            .saturating_sub(r.shared_per_block)
            .clamp(1, MAX_SHARED_LIMIT)
    }

    /// What `--gpu` said: a preset name or a file.
    pub fn source(&self) -> &str {
        &self.source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(gpu: &str, banks: &[u32], bank_bytes: &[u32]) -> MachineArgs {
        MachineArgs {
            gpu: gpu.into(),
            banks: banks.to_vec(),
            bank_bytes: bank_bytes.to_vec(),
        }
    }

    #[test]
    fn defaults_are_the_gpus() {
        let m = Machine::resolve(&MachineArgs::default()).unwrap();
        assert_eq!(m, Machine::h200());
        assert_eq!(m.geometry(), Geometry::H200);
        assert_eq!(m.shared_limit(), 227 * 1024);
        assert_eq!(m.source(), "h200");
        let m = Machine::resolve(&args("H200", &[64], &[8])).unwrap();
        assert_eq!((m.geometry().banks, m.geometry().bank_bytes), (64, 8));
        assert_eq!(m.gpu().banks, 64);
        assert_eq!(m.gpu().sms, 132);
    }

    #[test]
    fn every_geometry_is_checked_once_here() {
        for (b, w, what) in [(0, 4, "0 banks"), (32, 3, "3 bytes"), (2000, 4, "2000")] {
            let e = Machine::resolve(&args("h200", &[b], &[w])).unwrap_err();
            assert!(e.message.contains("invalid bank geometry"), "{}", e.message);
            assert!(e.message.contains(what), "{}", e.message);
            assert!(e.location.starts_with("h200"), "{}", e.location);
        }
        // A sweep checks every combination, and a list is a sweep's alone.
        let s = Machine::resolve_sweep(&args("h200", &[16, 32], &[4, 8])).unwrap();
        assert_eq!((s.banks, s.bank_bytes), (vec![16, 32], vec![4, 8]));
        assert!(Machine::resolve_sweep(&args("h200", &[16, 0], &[4])).is_err());
        let e = Machine::resolve(&args("h200", &[16, 32], &[])).unwrap_err();
        assert!(e.message.contains("--banks 16,32"), "{}", e.message);
        let e = Machine::resolve(&args("h200", &[], &[4, 8])).unwrap_err();
        assert!(e.message.contains("--bank-bytes 4,8"), "{}", e.message);
    }

    #[test]
    fn a_description_gives_its_own_geometry_and_limit() {
        let src = H200_RON
            .replace("banks: 32,", "banks: 64,")
            .replace("shared_bytes: 233472,", "shared_bytes: 100000,");
        let dir = std::env::temp_dir().join(format!("warpsim-machine-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wide.ron");
        std::fs::write(&path, src).unwrap();
        let m = Machine::resolve(&args(path.to_str().unwrap(), &[], &[])).unwrap();
        assert_eq!(m.geometry().banks, 64);
        assert_eq!(m.shared_limit(), 100000 - 1024);
        assert!(Machine::resolve(&args("nosuch.ron", &[], &[])).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
