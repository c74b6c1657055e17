//! The host side: initial buffer contents and the CPU reference check.
//!
//! # Initial contents ([`init_words`])
//!
//! * `Zeros`: all zero.
//! * `Iota`: element `i` holds `i` converted to the element type (`i as f32`, `i as f64`,
//!   `i as u32`, `i as i32`, rounding or wrapping like a C cast).
//! * `Random(seed)`: element `i` is drawn from `h = splitmix64(seed + (i + 1) · γ)`, the
//!   `(i + 1)`-th output of the SplitMix64 generator started at `seed` (γ =
//!   `0x9E3779B97F4A7C15`). Each element depends only on `(seed, i)`, so buffers are filled in
//!   parallel and the same seed gives the same contents on every machine. Floats are uniform
//!   in `[-1, 1)`: `f32` = `(h >> 40) · 2⁻²³ − 1` (24 random bits), `f64` =
//!   `(h >> 11) · 2⁻⁵² − 1` (53 bits). Integers (`u32`, `i32`) are `h >> 48`, uniform in
//!   `[0, 65536)`.
//!
//! # The reference ([`check`])
//!
//! A buffer's `expect` is an expression over `i` (the element index), the defines, the
//! buffers' *initial* contents (`buf[index]`) and `sum(k, from, to, term)` (the sum of `term`
//! for `k` = `from` … `to − 1`). It is compiled once into a tree with every name resolved to a
//! slot or a buffer number, then evaluated for every element in parallel (rayon).
//!
//! Its arithmetic:
//!
//! * Integers are 32-bit and wrap, like the kernel's: `i32` unless a `u32` is involved
//!   (a buffer element of type `u32`, a literal with a `u` suffix or above `i32::MAX`,
//!   `u32(…)`); `/ % >> < <= > >= min max` are signed for `i32` and unsigned for `u32`;
//!   shifts by 32 or more give 0 (or the sign bits). `i`, the defines and `sum` variables
//!   are `i32`.
//! * Floats are computed in `f64` (`f32` elements are widened exactly); `f32(x)` rounds to
//!   `f32` precision. An integer meeting a float becomes a float.
//! * Comparisons, `!`, `&&` and `||` give 0 or 1. Unlike in the kernel, `c ? a : b`,
//!   `select`, `&&` and `||` only evaluate the side they need, so `i > 0 ? a[i - 1] : 0` is
//!   a valid reference.
//! * Dividing an integer by zero, or reading a buffer out of bounds, is an error
//!   ([`Phase::Verify`]) pointing at the expression.
//!
//! # Predicates (`check`)
//!
//! A buffer's `check` is an expression of the same language, over `i`, the defines and every
//! buffer's *final* contents, that must be non-zero for every element `i` of the buffer
//! (`"i + 1 == N || out[i] <= out[i + 1]"`: sorted). It is evaluated once per element, in
//! parallel; a failure counts as a mismatch, reported with the lowest failing `i` and the
//! elements the predicate names there ([`Failure`]).
//!
//! Comparison with the final contents: integer buffers must match exactly (as 32-bit
//! values; a float reference is converted like a C cast); float buffers must satisfy
//! `|got − want| ≤ tolerance · max(1, max |want| over the buffer)` (NaN matches NaN,
//! infinities must be equal).

// `Diag` is large; errors are rare and leave the hot loop, so it is not boxed here.
#![allow(clippy::result_large_err)]

use crate::ast::{Elem, Init};
use crate::diag::{line_start, Diag, Phase};
use crate::expr::{BinOp, Kind, Node, UnOp};
use crate::ir::{Inst, Space};
use crate::program::{BufferInfo, Expect, Program};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

mod compile;
mod eval;
mod init;
mod permutation;
mod predicate;
#[cfg(test)]
mod tests;
mod verify;

pub use crate::expr::permutation_source;
use compile::*;
use eval::*;
pub use init::{fill_global, init_words, written_buffers};
#[cfg(test)]
use init::{init_element, random_bits};
pub use verify::{check, check_slices, referenced_buffers};
#[cfg(test)]
use verify::{check_limited, DEFAULT_MAX_TERMS};

// ---- verdicts --------------------------------------------------------------------------------

/// A value in a verdict: integers as integers, floats as floats.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// An integer element (`i32` or `u32`).
    Int(i64),
    /// A float element.
    Float(f64),
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(v) => write!(f, "{v}"),
            Num::Float(v) => write!(f, "{v}"),
        }
    }
}

/// The first element that does not match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// Element index.
    pub index: u64,
    /// What the kernel left there.
    pub got: Num,
    /// What the reference says.
    pub want: Num,
}

/// The result of checking one buffer against its `expect`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The buffer's name.
    pub buffer: String,
    /// Index into [`Program::buffers`].
    #[serde(skip)]
    pub index: usize,
    /// Every element matched.
    pub ok: bool,
    /// Elements compared.
    pub elements: u64,
    /// Elements that did not match.
    pub mismatches: u64,
    /// The lowest-indexed mismatch.
    pub first_mismatch: Option<Mismatch>,
    /// Floats only: the absolute tolerance used (`tolerance · max(1, max |want|)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abs_tolerance: Option<f64>,
    /// Floats only: the largest `|got − want|` seen (NaN-free elements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_error: Option<f64>,
    /// A `check` verdict: the predicate (`mismatches` counts the elements where it fails).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// A failed `check`: its lowest failing element and what the predicate read there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<Failure>,
}

/// The lowest element where a `check` fails.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// Element index `i`.
    pub index: u64,
    /// The buffer elements the predicate names at `i` (outside `sum`s), with their final
    /// values: `out[5] = 7`.
    pub reads: Vec<Read>,
}

/// One buffer element a failed predicate read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Read {
    /// `name[index]`.
    pub access: String,
    /// Its final value.
    pub value: Num,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.index)?;
        for (k, r) in self.reads.iter().enumerate() {
            let sep = if k == 0 { ": " } else { ", " };
            write!(f, "{sep}{} = {}", r.access, r.value)?;
        }
        Ok(())
    }
}
