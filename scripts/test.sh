#!/usr/bin/env bash
# The one test command (README, "Test"; `.ci/run` calls it): the Rust tests of the whole
# workspace, then the Python package's (scripts/test_python.sh: built into a fresh virtual
# environment; skipped, not failed, where Python or PyPI is missing). Arguments go to
# `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked "$@"
scripts/test_python.sh
