//! Integration tests.

mod cli_access;
mod cli_explain;
mod run;
