//! Integration tests.

mod bad_cli;
mod classic;
mod cli_access;
mod cli_explain;
mod determinism;
mod experiment;
mod fuzz_corpus;
mod hostile;
mod jumps;
mod kernels;
mod kernels2;
mod limits;
mod nvrtc;
mod pair_atomics;
mod ptx;
mod ptx_atomics;
mod ptx_classic;
mod ptx_half;
mod ptx_histogram;
mod ptx_local;
mod ptx_ops;
mod racecheck;
mod run;
mod timing;
mod util;
mod warpops;
