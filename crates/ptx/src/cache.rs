//! The PTX cache: NVRTC's output kept on disk, keyed by a hash of everything that makes it.
//!
//! # Brief overview
//!
//! A compilation's key is a hash of the CUDA source, the options (with the `-D` macros), the
//! kernel's name expression and NVRTC's version. Its PTX lives in `<dir>/<key>.ptx`, where
//! `<dir>` is `WARPSIM_CACHE`, else `$XDG_CACHE_HOME/warpsim`, else `~/.cache/warpsim`. The
//! file starts with two comment lines (a second, independent hash of the key, checked on
//! reading, and the kernel's lowered name), then NVRTC's PTX unchanged; diagnostics in the PTX
//! point at this file. Reading or writing the cache never fails a run: a file that cannot be
//! read or written is a miss.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A compilation's key: the file name and the check written into the file.
pub struct Key {
    /// Hex of one 64-bit hash (the file's stem).
    pub name: String,
    /// Hex of a second, independent one (the file's first line).
    pub check: String,
}

/// The key of `parts` (each hashed with its length, so that no two lists collide by
/// concatenation).
pub fn key(parts: &[&str]) -> Key {
    let hash = |basis: u64| {
        let mut h = basis;
        for p in parts {
            for b in (p.len() as u64).to_le_bytes().iter().chain(p.as_bytes()) {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        h
    };
    Key {
        name: format!("{:016x}", hash(0xcbf2_9ce4_8422_2325)),
        check: format!("{:016x}", hash(0x6c62_272e_07bb_0142)),
    }
}

/// The cache folder, when one can be named.
pub fn dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("WARPSIM_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("warpsim")))
        .or_else(|| env("HOME").map(|h| h.join(".cache").join("warpsim")))
}

/// The header of a cache file.
fn header(key: &Key, lowered: &str) -> String {
    format!("// warpsim PTX cache {}\n// kernel {lowered}\n", key.check)
}

/// The cached file for `key`: its path, its whole text (header and PTX) and the lowered name.
pub fn get(key: &Key) -> Option<(PathBuf, String, String)> {
    let path = dir()?.join(format!("{}.ptx", key.name));
    let text = std::fs::read_to_string(&path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != format!("// warpsim PTX cache {}", key.check) {
        return None;
    }
    let lowered = lines.next()?.strip_prefix("// kernel ")?.to_owned();
    Some((path, text, lowered))
}

/// The text of a cache file for `ptx` (what [`get`] gives back).
pub fn text(key: &Key, lowered: &str, ptx: &str) -> String {
    header(key, lowered) + ptx
}

/// Writes `text` (from [`text`]) for `key`; the path when it was written. Written to a
/// temporary file first and renamed, so a reader never sees half a file.
pub fn put(key: &Key, text: &str) -> Option<PathBuf> {
    let dir = dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{}.ptx", key.name));
    // Unique per process and per call: two threads of a sweep may write the same key.
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!("{}.{}.{n}.tmp", key.name, std::process::id()));
    std::fs::write(&tmp, text).ok()?;
    match std::fs::rename(&tmp, &path) {
        Ok(()) => Some(path),
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_any_part_and_by_boundaries() {
        let a = key(&["src", "opts", "k", "12.6"]);
        let b = key(&["src", "opts", "k", "12.8"]);
        let c = key(&["sr", "copts", "k", "12.6"]);
        assert_ne!(a.name, b.name);
        assert_ne!(a.name, c.name);
        assert_ne!(a.check, a.name);
        assert_eq!(a.name, key(&["src", "opts", "k", "12.6"]).name);
    }
}
