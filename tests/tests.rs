//! Integration tests.

mod bad_cli;
mod cli_access;
mod cli_explain;
mod determinism;
mod experiment;
mod fuzz_corpus;
mod hostile;
mod kernels;
mod limits;
mod ptx;
mod racecheck;
mod run;
mod timing;
mod util;
