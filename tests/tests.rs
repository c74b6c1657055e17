//! Integration tests.

mod cli_access;
mod cli_explain;
mod run;
mod experiment;
mod kernels;
mod util;
mod racecheck;
