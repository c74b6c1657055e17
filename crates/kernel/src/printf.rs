//! CUDA's device `printf` (PTX `call vprintf`): the format string, parsed and checked once
//! when the kernel is lowered ([`Format::parse`]), and the text one thread prints
//! ([`format`]).
//!
//! `vprintf(fmt, args)` takes the arguments packed in the calling thread's local memory, each
//! at its natural alignment: an `int` (and `char`, `short`: promoted) 4 bytes, a `long`,
//! `long long`, `size_t` or pointer 8, a `float` promoted to `double` 8. The conversions are
//! C's `d i u x X o c f F e E g G p %`, with the flags `- + space # 0`, a width and a precision
//! (either may be `*`, an `int` argument) and the lengths `hh h l ll z j t`, and `%s` of one of
//! the module's string literals (a pointer to byte `o` of literal `k`, in name order, is
//! [`STRING_BASE`]` + (k << 24) + o`; any other pointer prints `<?>`, null `(null)`). `%n`, `%a`
//! and wide characters are refused when the kernel is lowered.

/// The tag of a pointer into the module's string literals (below `Mem::LOCAL_GENERIC`, above
/// every global pointer).
pub const STRING_BASE: u64 = 0xfffe << 48;

/// One piece of a format: text, or a conversion.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Text printed as it is (`%%` already one `%`).
    Text(Vec<u8>),
    /// A conversion.
    Conv(Spec),
}

/// A conversion `%[flags][width][.precision][length]conv`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spec {
    /// `-`: left-justified.
    pub left: bool,
    /// `+`: a sign on positive numbers.
    pub plus: bool,
    /// ` `: a space on positive numbers.
    pub space: bool,
    /// `#`: the alternative form.
    pub alt: bool,
    /// `0`: padded with zeros.
    pub zero: bool,
    /// The width: none, a number, or `*` (an argument).
    pub width: Count,
    /// The precision: none, a number, or `*` (an argument).
    pub precision: Count,
    /// An 8-byte integer argument (`l`, `ll`, `z`, `j`, `t`).
    pub wide: bool,
    /// `hh` (0), `h` (1): the integer is cut to 8 or 16 bits.
    pub short: Option<u8>,
    /// The conversion character.
    pub conv: u8,
}

/// A width or precision.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Count {
    /// Not given.
    #[default]
    None,
    /// A number.
    Fixed(usize),
    /// `*`: the next `int` argument.
    Arg,
}

/// A format, parsed once: its pieces and the arguments it takes (what CUDA's `printf`
/// returns).
#[derive(Clone, Debug, PartialEq)]
pub struct Format {
    /// Its pieces, in order.
    pub pieces: Vec<Piece>,
    /// Its arguments.
    pub args: u32,
    /// The module's string literals, in name order, when the format has a `%s` (what its
    /// pointers point into); else empty.
    pub strings: Vec<Vec<u8>>,
}

impl Format {
    /// [`parse`]s `fmt` and counts its [`arguments`].
    pub fn parse(fmt: &[u8]) -> Result<Format, String> {
        let pieces = parse(fmt)?;
        let args = arguments(&pieces);
        Ok(Format {
            pieces,
            args,
            strings: Vec::new(),
        })
    }
}

/// Widths and precisions above this are refused (the GPU's printf buffer is 1 MiB).
const MAX_COUNT: usize = 4096;

/// The pieces of format `fmt` (up to its first zero byte), or what is wrong with it.
pub fn parse(fmt: &[u8]) -> Result<Vec<Piece>, String> {
    let end = fmt.iter().position(|&b| b == 0).unwrap_or(fmt.len());
    let fmt = &fmt[..end];
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            text.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            text.push(b'%');
            i += 1;
            continue;
        }
        let mut s = Spec::default();
        while let Some(&c) = fmt.get(i) {
            match c {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        s.width = count(fmt, &mut i)?;
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            s.precision = match count(fmt, &mut i)? {
                Count::None => Count::Fixed(0),
                c => c,
            };
        }
        match (fmt.get(i), fmt.get(i + 1)) {
            (Some(b'h'), Some(b'h')) => (s.short, i) = (Some(0), i + 2),
            (Some(b'h'), _) => (s.short, i) = (Some(1), i + 1),
            (Some(b'l'), Some(b'l')) => (s.wide, i) = (true, i + 2),
            (Some(b'l' | b'z' | b'j' | b't'), _) => (s.wide, i) = (true, i + 1),
            _ => {}
        }
        let Some(&c) = fmt.get(i) else {
            return Err("the format ends inside a conversion (a `%` without its letter)".into());
        };
        i += 1;
        match c {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' | b'f' | b'F' | b'e' | b'E' | b'g'
            | b'G' | b'p' => s.conv = c,
            b's' => s.conv = c,
            _ => {
                return Err(format!(
                    "`%{}` is not a conversion warpsim prints (d i u x X o c f F e E g G p %)",
                    c as char
                ))
            }
        }
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        out.push(Piece::Conv(s));
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// A width or precision at `fmt[*i..]`.
fn count(fmt: &[u8], i: &mut usize) -> Result<Count, String> {
    if fmt.get(*i) == Some(&b'*') {
        *i += 1;
        return Ok(Count::Arg);
    }
    let start = *i;
    while fmt.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    if *i == start {
        return Ok(Count::None);
    }
    let n: usize = std::str::from_utf8(&fmt[start..*i])
        .ok()
        .and_then(|t| t.parse().ok())
        .filter(|&n| n <= MAX_COUNT)
        .ok_or_else(|| format!("a width or precision above {MAX_COUNT}"))?;
    Ok(Count::Fixed(n))
}

/// The arguments a format takes (what CUDA's `printf` returns).
pub fn arguments(pieces: &[Piece]) -> u32 {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(_) => 0,
            Piece::Conv(s) => {
                1 + (s.width == Count::Arg) as u32 + (s.precision == Count::Arg) as u32
            }
        })
        .sum()
}

/// The text of `pieces` with the arguments `read(byte, bytes)` gives: the `bytes`-byte
/// little-endian value at `byte` of the packed arguments (`None` where there is none:
/// printed as a missing argument, `<?>`); a `%s` prints from `strings` ([`STRING_BASE`]).
pub fn format(
    pieces: &[Piece],
    strings: &[Vec<u8>],
    mut read: impl FnMut(u32, u32) -> Option<u64>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0u32;
    let mut next = |bytes: u32| {
        at = at.next_multiple_of(bytes);
        let v = read(at, bytes);
        at += bytes;
        v
    };
    for p in pieces {
        let s = match p {
            Piece::Text(t) => {
                out.extend_from_slice(t);
                continue;
            }
            Piece::Conv(s) => *s,
        };
        let mut s = s;
        let width = match s.width {
            Count::Arg => next(4).map(|v| {
                let w = v as u32 as i32;
                s.left |= w < 0;
                (w.unsigned_abs() as usize).min(MAX_COUNT)
            }),
            Count::Fixed(n) => Some(n),
            Count::None => Some(0),
        };
        let precision = match s.precision {
            Count::Arg => next(4).map(|v| {
                let p = v as u32 as i32;
                (p >= 0).then_some((p as usize).min(MAX_COUNT))
            }),
            Count::Fixed(n) => Some(Some(n)),
            Count::None => Some(None),
        };
        let bytes = match s.conv {
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'p' | b's' => 8,
            _ if s.wide => 8,
            _ => 4,
        };
        let (Some(width), Some(precision), Some(v)) = (width, precision, next(bytes)) else {
            out.extend_from_slice(b"<?>");
            continue;
        };
        let body = match s.conv {
            b's' => string(strings, v, precision),
            _ => convert(&s, precision, v),
        };
        pad(&mut out, &s, width, body);
    }
    out
}

/// `%s` of pointer `p`: a string literal's bytes from there (at most `precision` of them);
/// `(null)` for 0, `<?>` for a pointer anywhere else.
fn string(strings: &[Vec<u8>], p: u64, precision: Option<usize>) -> Body {
    let text: &[u8] = match p {
        0 => b"(null)",
        _ if p >> 48 == STRING_BASE >> 48 => {
            let (k, o) = (((p >> 24) & 0xff_ffff) as usize, (p & 0xff_ffff) as usize);
            strings.get(k).map_or(b"<?>", |t| t.get(o..).unwrap_or(&[]))
        }
        _ => b"<?>",
    };
    let n = precision.map_or(text.len(), |p| p.min(text.len()));
    Body {
        prefix: String::new(),
        digits: String::from_utf8_lossy(&text[..n]).into_owned(),
        zero_ok: false,
    }
}

/// A converted value: its sign or prefix, and its digits.
struct Body {
    prefix: String,
    digits: String,
    /// Zero padding goes between prefix and digits (numbers that are not inf or nan, with no
    /// precision for integers).
    zero_ok: bool,
}

fn convert(s: &Spec, precision: Option<usize>, v: u64) -> Body {
    let sign = |neg: bool| -> String {
        match (neg, s.plus, s.space) {
            (true, _, _) => "-".into(),
            (false, true, _) => "+".into(),
            (false, false, true) => " ".into(),
            _ => String::new(),
        }
    };
    let int_digits = |mut d: String| {
        if let Some(p) = precision {
            if p == 0 && d == "0" {
                d.clear();
            }
            while d.len() < p {
                d.insert(0, '0');
            }
        }
        d
    };
    let unsigned = match (s.wide, s.short) {
        (true, _) => v,
        (false, Some(0)) => v & 0xff,
        (false, Some(_)) => v & 0xffff,
        (false, None) => v & 0xffff_ffff,
    };
    let signed = match (s.wide, s.short) {
        (true, _) => v as i64,
        (false, Some(0)) => v as u8 as i8 as i64,
        (false, Some(_)) => v as u16 as i16 as i64,
        (false, None) => v as u32 as i32 as i64,
    };
    let zero_ok = precision.is_none();
    match s.conv {
        b'd' | b'i' => Body {
            prefix: sign(signed < 0),
            digits: int_digits(signed.unsigned_abs().to_string()),
            zero_ok,
        },
        b'u' => Body {
            prefix: String::new(),
            digits: int_digits(unsigned.to_string()),
            zero_ok,
        },
        b'x' | b'X' => {
            let mut d = int_digits(format!("{unsigned:x}"));
            let mut prefix = String::new();
            if s.alt && unsigned != 0 {
                prefix = "0x".into();
            }
            if s.conv == b'X' {
                d = d.to_ascii_uppercase();
                prefix = prefix.to_ascii_uppercase();
            }
            Body {
                prefix,
                digits: d,
                zero_ok,
            }
        }
        b'o' => {
            let mut d = int_digits(format!("{unsigned:o}"));
            if s.alt && !d.starts_with('0') {
                d.insert(0, '0');
            }
            Body {
                prefix: String::new(),
                digits: d,
                zero_ok,
            }
        }
        b'c' => Body {
            prefix: String::new(),
            digits: ((v & 0xff) as u8 as char).to_string(),
            zero_ok: false,
        },
        b'p' => Body {
            prefix: "0x".into(),
            digits: format!("{v:x}"),
            zero_ok: false,
        },
        c => {
            let x = f64::from_bits(v);
            let upper = c.is_ascii_uppercase();
            let prefix = sign(x.is_sign_negative() && !x.is_nan());
            if !x.is_finite() {
                let t = if x.is_nan() { "nan" } else { "inf" };
                return Body {
                    prefix,
                    digits: if upper {
                        t.to_ascii_uppercase()
                    } else {
                        t.into()
                    },
                    zero_ok: false,
                };
            }
            let p = precision.unwrap_or(6);
            let a = x.abs();
            let mut d = match c.to_ascii_lowercase() {
                b'f' => fixed(a, p, s.alt),
                b'e' => exp(a, p, s.alt),
                _ => general(a, p, s.alt),
            };
            if upper {
                d = d.to_ascii_uppercase();
            }
            Body {
                prefix,
                digits: d,
                zero_ok: true,
            }
        }
    }
}

/// `%f`'s digits of `a >= 0`.
fn fixed(a: f64, p: usize, alt: bool) -> String {
    let mut d = format!("{a:.p$}");
    if alt && p == 0 {
        d.push('.');
    }
    d
}

/// `%e`'s digits of `a >= 0`: `d.ddde±XX`.
fn exp(a: f64, p: usize, alt: bool) -> String {
    let r = format!("{a:.p$e}");
    let (m, e) = r.split_once('e').unwrap_or((&r, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let mut m = m.to_owned();
    if alt && p == 0 {
        m.push('.');
    }
    format!(
        "{m}e{}{:02}",
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

/// `%g`'s digits of `a >= 0`: `%e` or `%f` by the exponent, trailing zeros removed (unless
/// `#`).
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let x = if a == 0.0 {
        0
    } else {
        let r = format!("{a:.*e}", p - 1);
        r.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let mut d = if x < p as i64 && x >= -4 {
        fixed(a, (p as i64 - 1 - x) as usize, alt)
    } else {
        exp(a, p - 1, alt)
    };
    if !alt {
        let (m, e) = match d.find('e') {
            Some(k) => (d[..k].to_owned(), d[k..].to_owned()),
            None => (d.clone(), String::new()),
        };
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            m
        };
        d = m + &e;
    }
    d
}

/// Appends `body` padded to `width` as the flags say.
fn pad(out: &mut Vec<u8>, s: &Spec, width: usize, b: Body) {
    let len = b.prefix.len() + b.digits.len();
    let fill = width.saturating_sub(len);
    if s.left {
        out.extend_from_slice(b.prefix.as_bytes());
        out.extend_from_slice(b.digits.as_bytes());
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if s.zero && b.zero_ok {
        out.extend_from_slice(b.prefix.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(b.digits.as_bytes());
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(b.prefix.as_bytes());
        out.extend_from_slice(b.digits.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fmt` printed with `args` packed as vprintf packs them (each at its alignment).
    fn p(fmt: &str, args: &[(u64, u32)]) -> String {
        let mut bytes = Vec::new();
        for &(v, n) in args {
            while bytes.len() % n as usize != 0 {
                bytes.push(0);
            }
            bytes.extend_from_slice(&v.to_le_bytes()[..n as usize]);
        }
        let pieces = parse(fmt.as_bytes()).unwrap();
        let strings = [b"even".to_vec(), b"odd".to_vec()];
        let out = format(&pieces, &strings, |at, n| {
            let b = bytes.get(at as usize..(at + n) as usize)?;
            Some(b.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64))
        });
        String::from_utf8(out).unwrap()
    }

    fn i(v: i32) -> (u64, u32) {
        (v as u32 as u64, 4)
    }

    fn f(v: f64) -> (u64, u32) {
        (v.to_bits(), 8)
    }

    #[test]
    fn integers_as_c_prints_them() {
        assert_eq!(p("t=%d", &[i(-5)]), "t=-5");
        assert_eq!(
            p("[%5d|%-5d|%05d]", &[i(42), i(42), i(-42)]),
            "[   42|42   |-0042]"
        );
        assert_eq!(p("%+d % d", &[i(7), i(7)]), "+7  7");
        assert_eq!(
            p("%x %X %#x %o %#o", &[i(255), i(255), i(255), i(8), i(8)]),
            "ff FF 0xff 10 010"
        );
        assert_eq!(p("%u", &[i(-1)]), "4294967295");
        assert_eq!(p("%.3d|%.0d|", &[i(5), i(0)]), "005||");
        assert_eq!(
            p("%lld %llu", &[(u64::MAX, 8), (u64::MAX, 8)]),
            "-1 18446744073709551615"
        );
        assert_eq!(p("%hhd %hu", &[i(0x1ff), i(-1)]), "-1 65535");
        assert_eq!(p("%c%c", &[i(104), i(105)]), "hi");
        assert_eq!(p("%*d|%-*d", &[i(4), i(1), i(3), i(2)]), "   1|2  ");
        assert_eq!(p("%d %lld %d", &[i(1), (2, 8), i(3)]), "1 2 3");
        assert_eq!(p("100%%", &[]), "100%");
        assert_eq!(p("%p", &[(0x1000, 8)]), "0x1000");
    }

    #[test]
    fn floats_as_c_prints_them() {
        assert_eq!(p("%f", &[f(1.5)]), "1.500000");
        assert_eq!(
            p("%.2f %8.3f %-8.1f|", &[f(1.23456), f(-2.5), f(0.25)]),
            "1.23   -2.500 0.2     |"
        );
        assert_eq!(
            p("%e %E", &[f(12345.678), f(0.00012)]),
            "1.234568e+04 1.200000E-04"
        );
        assert_eq!(
            p("%g %g %g %g", &[f(100000.0), f(1e6), f(0.0001), f(1e-5)]),
            "100000 1e+06 0.0001 1e-05"
        );
        assert_eq!(
            p("%g %.3g %#g", &[f(2.5), f(1.23456), f(2.0)]),
            "2.5 1.23 2.00000"
        );
        assert_eq!(
            p(
                "%f %F %f",
                &[f(f64::INFINITY), f(f64::NAN), f(-f64::INFINITY)]
            ),
            "inf NAN -inf"
        );
        assert_eq!(p("%+.1f %08.2f", &[f(2.0), f(-1.5)]), "+2.0 -0001.50");
        assert_eq!(p("%.0f %.0e", &[f(2.5), f(15.0)]), "2 2e+01");
    }

    /// `%s` prints a string literal from its pointer (literal `k`, byte `o`), with width and
    /// precision; null is `(null)`, any other pointer `<?>`.
    #[test]
    fn strings_are_the_module_literals() {
        let lit = |k: u64, o: u64| (STRING_BASE + (k << 24) + o, 8);
        assert_eq!(
            p(
                "%s|%-5s|%.2s|%s",
                &[lit(1, 0), lit(0, 0), lit(0, 1), lit(1, 2)]
            ),
            "odd|even |ve|d"
        );
        assert_eq!(
            p("%s %s %s", &[(0, 8), (0x1234, 8), lit(7, 0)]),
            "(null) <?> <?>"
        );
    }

    #[test]
    fn what_is_refused_and_missing_arguments() {
        assert!(parse(b"%n").unwrap_err().contains("`%n`"));
        assert!(parse(b"50%").unwrap_err().contains("ends inside"));
        assert!(parse(b"%99999d").unwrap_err().contains("above"));
        assert_eq!(arguments(&parse(b"%d %*.*f %%").unwrap()), 4);
        assert_eq!(p("%d %d", &[i(1)]), "1 <?>");
        // The format ends at its first zero byte.
        assert_eq!(parse(b"ab\0cd").unwrap(), vec![Piece::Text(b"ab".to_vec())]);
    }
}
