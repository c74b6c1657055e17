//! The CPU reference of warpsim: checks a run's final buffers against each buffer's
//! `expect` reference or `check` predicate, independently of the executor.
//!
//! # Brief overview
//!
//! * [`check`] (and [`check_slices`], on borrowed words): every buffer with an `expect` or
//!   a `check`, one [`Verdict`] each, with the first [`Mismatch`] or [`Failure`].
//! * `compile`: an `expect`/`check` expression compiled once into a tree with every name
//!   resolved to a slot or a buffer; `eval`: that tree lowered to closures, evaluated for
//!   every element, in parallel (rayon); `columns`: the same tree evaluated for runs of 256
//!   elements at once, one loop per node (dot-product sums side by side), where it can be;
//!   `fast`: the common `sum` terms (dot products, single loads, counts) over affine indices
//!   as tight loops, and integer division by a power of two as shifts. All of them give the
//!   closures' values bit for bit.
//! * `expect`: the comparison of final contents with a reference (exact for integers, a
//!   relative tolerance for floats); `predicate`: `check` predicates over the final contents;
//!   `permutation`: `expect: "permutation(src)"`.
//!
//! This crate never runs the kernel and shares no code with the executor: it reads the
//! [`Program`]'s buffers and their expressions (`warpsim-kernel`) and the words the run left.
//! The initial contents it compares against come from the caller (`warpsim_exec::init_words`).
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
#![warn(missing_docs)]

use rayon::prelude::*;
use serde::Serialize;
use std::fmt;
use warpsim_kernel::diag::{line_start, Diag, Phase};
use warpsim_kernel::expr::{permutation_source, BinOp, Kind, Node, UnOp};
use warpsim_kernel::{BufferInfo, Elem, Expect, Program};

mod columns;
mod compile;
mod eval;
mod expect;
mod fast;
#[cfg(test)]
mod fast_tests;
mod permutation;
mod predicate;
#[cfg(test)]
mod tests;

use columns::{Columns, RUN};
use compile::*;
use eval::*;
pub use expect::{check, check_slices, compile_all, referenced_buffers};
#[cfg(test)]
use expect::{check_limited, DEFAULT_MAX_TERMS};

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
