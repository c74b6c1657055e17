//! Integer kernel arguments against their PTX parameter's type: range-checked (an argument
//! that does not fit is refused, never wrapped: `4294967296 + 32` for a `.u32` was 32), and
//! for a float parameter passed as the float of the same value (it was passed as its bits).

/// Whether `v` fits a parameter of type `ty` (`.u32`, `.s8`, `.f32` …); the reason if not.
pub(super) fn check(v: i64, ty: &str) -> Result<(), String> {
    let t = ty.trim_start_matches('.');
    let (lo, hi): (i128, i128) = match t {
        "u8" => (0, u8::MAX as i128),
        "s8" => (i8::MIN as i128, i8::MAX as i128),
        "b8" => (i8::MIN as i128, u8::MAX as i128),
        "u16" => (0, u16::MAX as i128),
        "s16" => (i16::MIN as i128, i16::MAX as i128),
        "b16" => (i16::MIN as i128, u16::MAX as i128),
        "u32" => (0, u32::MAX as i128),
        "s32" => (i32::MIN as i128, i32::MAX as i128),
        "b32" => (i32::MIN as i128, u32::MAX as i128),
        "u64" => (0, i64::MAX as i128),
        "f32" => (-(1 << 24), 1 << 24),
        "f64" => (-(1 << 53), 1 << 53),
        _ => (i64::MIN as i128, i64::MAX as i128),
    };
    if (lo..=hi).contains(&(v as i128)) {
        return Ok(());
    }
    let float = t.starts_with('f');
    Err(format!(
        "{v} does not fit {}: it takes {lo} to {hi}{}",
        t,
        if float {
            " exactly (an integer argument is passed as the float of its value)"
        } else {
            " (an argument is never wrapped)"
        }
    ))
}

/// The bits an integer argument `v` passes to a parameter of type `ty`: the float of its
/// value for `.f32`/`.f64`, else its two's complement.
pub(super) fn bits(v: i64, ty: &str) -> u64 {
    match ty.trim_start_matches('.') {
        "f32" => (v as f32).to_bits() as u64,
        "f64" => (v as f64).to_bits(),
        _ => v as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_float_bits() {
        assert!(check(4294967295, ".u32").is_ok());
        assert!(check(4294967296 + 32, ".u32").is_err());
        assert!(check(-1, ".u32").is_err());
        assert!(check(-1, ".b32").is_ok());
        assert!(check(2147483648, ".s32").is_err());
        assert!(check(-129, ".s8").is_err());
        assert!(check(1 << 24, ".f32").is_ok());
        assert!(check((1 << 24) + 1, ".f32").is_err());
        assert!(check(i64::MIN, ".s64").is_ok());
        assert_eq!(bits(2, ".f32"), 2.0f32.to_bits() as u64);
        assert_eq!(bits(-3, ".f64"), (-3.0f64).to_bits());
        assert_eq!(bits(-1, ".u32"), u64::MAX);
    }
}
