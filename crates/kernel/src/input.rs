//! The one reader of every input file (programs, `--gpu` descriptions, traces, `#include`d
//! headers, cache entries): regular files only, and never more than a cap.
//!
//! A FIFO would block the reader for ever, a device (`/dev/zero`) feed it without end, a
//! directory fail with an unclear message: each is refused by what the file *is*, found on
//! the open file (no race between a check and the open; a FIFO is opened without blocking).
//! Each kind of input has a default cap; `WARPSIM_MAX_FILE_BYTES` (bytes, read when a file is
//! read) replaces it for every input, to read larger files.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The environment variable that sets the cap of every input file, in bytes.
pub const MAX_FILE_BYTES_VAR: &str = "WARPSIM_MAX_FILE_BYTES";

/// Why an input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// Opening or reading failed.
    Io(std::io::Error),
    /// It is not a regular file: what it is ("a directory", "a FIFO", "a device" ...).
    NotRegular(&'static str),
    /// It is larger than the cap (in bytes).
    TooLarge(u64),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::NotRegular(what) => write!(f, "it is {what}, not a regular file"),
            InputError::TooLarge(cap) => write!(
                f,
                "it is larger than {cap} bytes ({}), the most warpsim reads of it",
                human(*cap)
            ),
        }
    }
}

impl InputError {
    /// What to do about it, for a diagnostic's help.
    pub fn help(&self) -> String {
        match self {
            InputError::Io(_) => "check the path and its permissions".into(),
            InputError::NotRegular(_) => "give the path of a file (pipes, devices and \
                                          directories are not read)"
                .into(),
            InputError::TooLarge(_) => format!(
                "to read it anyway, set {MAX_FILE_BYTES_VAR} to its size in bytes (or more)"
            ),
        }
    }
}

/// `n` bytes in KiB, MiB or GiB.
pub fn human(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// The cap of an input whose default is `default`: `WARPSIM_MAX_FILE_BYTES` when it is set
/// to a number.
pub fn cap(default: u64) -> u64 {
    std::env::var(MAX_FILE_BYTES_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Opens `path` for reading if it is a regular file (following symbolic links).
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO with no writer returns at once (it is refused below);
        // for a regular file it changes nothing.
        opts.custom_flags(O_NONBLOCK);
    }
    let file = opts.open(path).map_err(InputError::Io)?;
    let kind = file.metadata().map_err(InputError::Io)?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    Err(InputError::NotRegular(describe(&kind)))
}

#[cfg(all(unix, any(target_os = "linux", target_os = "android")))]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
const O_NONBLOCK: i32 = 0x0004;

fn describe(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Reads the regular file `path` whole, refusing it past `cap(default_cap)` bytes (read no
/// further than one byte past the cap).
pub fn read_capped(path: &Path, default_cap: u64) -> Result<Vec<u8>, InputError> {
    let cap = cap(default_cap);
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(InputError::TooLarge(cap));
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text; text that is not UTF-8 is an `InvalidData` error naming
/// the offset of the first bad byte.
pub fn read_text_capped(path: &Path, default_cap: u64) -> Result<String, InputError> {
    String::from_utf8(read_capped(path, default_cap)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        InputError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text: byte 0x{:02x} at offset {at}",
                e.as_bytes()[at]
            ),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        assert!(matches!(
            open_regular(Path::new("/")),
            Err(InputError::NotRegular("a directory"))
        ));
        #[cfg(unix)]
        assert!(matches!(
            read_capped(Path::new("/dev/zero"), 10),
            Err(InputError::NotRegular("a device"))
        ));
        assert!(matches!(
            read_capped(Path::new("/no/such/file"), 10),
            Err(InputError::Io(_))
        ));
    }

    #[test]
    fn reads_up_to_the_cap_and_no_further() {
        let dir = std::env::temp_dir().join(format!("warpsim-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("ten");
        std::fs::write(&p, "0123456789").unwrap();
        assert_eq!(read_capped(&p, 10).unwrap().len(), 10);
        let e = read_capped(&p, 9).unwrap_err();
        assert!(matches!(e, InputError::TooLarge(9)), "{e}");
        assert!(e.help().contains(MAX_FILE_BYTES_VAR));
        std::fs::write(&p, [b'a', 0xff]).unwrap();
        let e = read_text_capped(&p, 10).unwrap_err();
        assert!(e.to_string().contains("0xff at offset 1"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
