//! The `warpsim` command line.
fn main() {}
