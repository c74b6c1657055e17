//! The PTX cache: NVRTC's output kept on disk, keyed by a hash of everything that makes it.
//!
//! # Brief overview
//!
//! A compilation's key is a hash of the CUDA source, the options (with the `-D` macros), the
//! kernel's name expression and NVRTC's version. Its PTX lives in `<dir>/<key>.ptx`, where
//! `<dir>` is `WARPSIM_CACHE`, else `$XDG_CACHE_HOME/warpsim`, else `~/.cache/warpsim`. The
//! file starts with two comment lines (a second, independent hash of the key and a hash of the
//! rest of the file, both checked on reading, and the kernel's lowered name), then NVRTC's PTX
//! unchanged; diagnostics in the PTX point at this file. Reading or writing the cache never
//! fails a run: a file that cannot be read (through the capped reader: a FIFO or a device
//! put in its place is not read), whose hashes do not match, or that cannot be written is a
//! miss.

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

/// The most bytes of a cache file read.
const MAX_ENTRY_BYTES: u64 = 256 << 20;

/// The hash of a cache file's content: the lowered name and the PTX.
fn content(lowered: &str, ptx: &str) -> String {
    key(&[lowered, ptx]).name
}

/// The header of a cache file.
fn header(key: &Key, lowered: &str, ptx: &str) -> String {
    format!(
        "// warpsim PTX cache {} {}\n// kernel {lowered}\n",
        key.check,
        content(lowered, ptx)
    )
}

/// The cached file for `key`: its path, its whole text (header and PTX) and the lowered name.
pub fn get(key: &Key) -> Option<(PathBuf, String, String)> {
    let path = dir()?.join(format!("{}.ptx", key.name));
    let text = warpsim_kernel::input::read_text_capped(&path, MAX_ENTRY_BYTES).ok()?;
    let (first, rest) = text.split_once('\n')?;
    let (second, ptx) = rest.split_once('\n')?;
    let (check, sum) = first
        .strip_prefix("// warpsim PTX cache ")?
        .split_once(' ')?;
    let lowered = second.strip_prefix("// kernel ")?.to_owned();
    if check != key.check || sum != content(&lowered, ptx) {
        return None;
    }
    Some((path, text, lowered))
}

/// The text of a cache file for `ptx` (what [`get`] gives back).
pub fn text(key: &Key, lowered: &str, ptx: &str) -> String {
    header(key, lowered, ptx) + ptx
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

    #[test]
    fn entries_are_checked_by_content_and_read_capped() {
        let dir = std::env::temp_dir().join(format!("warpsim-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // The only test of this crate that sets WARPSIM_CACHE.
        std::env::set_var("WARPSIM_CACHE", &dir);
        let k = key(&["a"]);
        let t = text(&k, "_Z1kv", ".entry _Z1kv(\n");
        let p = put(&k, &t).unwrap();
        assert_eq!(get(&k).unwrap().1, t);
        // The PTX changed behind the check line: a miss.
        std::fs::write(&p, t.replace(".entry", ".entrx")).unwrap();
        assert!(get(&k).is_none());
        // A directory in the entry's place: a miss, not an error.
        std::fs::remove_file(&p).unwrap();
        std::fs::create_dir_all(&p).unwrap();
        assert!(get(&k).is_none());
        std::env::remove_var("WARPSIM_CACHE");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
