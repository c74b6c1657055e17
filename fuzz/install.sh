#!/usr/bin/env bash
# Installs the pinned cargo-fuzz into fuzz/.tools (ignored by git; CARGO_FUZZ_ROOT to change
# it) with the stable toolchain the project builds with, and prints the PATH line to use.
# The targets build with `--sanitizer none`, so no nightly toolchain is needed.
#
#   fuzz/install.sh && export PATH="$PWD/fuzz/.tools/bin:$PATH"
set -euo pipefail
cd "$(dirname "$0")"
version=0.13.2
root=${CARGO_FUZZ_ROOT:-$PWD/.tools}
if [ -x "$root/bin/cargo-fuzz" ] && "$root/bin/cargo-fuzz" --version | grep -q "$version"; then
    echo "cargo-fuzz $version already in $root/bin"
else
    cargo install cargo-fuzz --locked --version "$version" --root "$root"
fi
echo "export PATH=\"$root/bin:\$PATH\""
