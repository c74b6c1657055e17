//! The verification's total budget: the `sum`s of the references (`expect`, `check`) of all
//! the elements checked add at most [`TERMS_PER_STEP`] × `--max-steps` terms in all.
//!
//! The reference limits the terms of one element to a number it is given; without a total,
//! a million elements each under `--max-steps` (1,024 `sum`s, or an O(n²) `check`) ran for
//! hours. The runner gives each element an equal share of the total (never more than
//! `--max-steps`), so that the whole verification is bounded, and a reference past its share
//! is an error that says how to raise it.

use warpsim_kernel::{Diag, Program};

/// Terms the whole verification may add, per `--max-steps` (the default `--max-steps`,
/// 10⁸, gives 10¹⁰ terms: about a minute of reference evaluation at worst).
pub const TERMS_PER_STEP: u64 = 100;

/// One run's verification budget.
pub(crate) struct Budget {
    /// Terms any one element may add.
    pub per_element: u64,
    /// Elements checked (a buffer with both `check` and `expect` counts twice).
    elements: u64,
    /// Terms in all.
    total: u64,
}

impl Budget {
    /// The budget of `prog`'s verification under `max_steps`.
    pub(crate) fn new(prog: &Program, max_steps: u64) -> Budget {
        let elements: u64 = prog
            .buffers
            .iter()
            .map(|b| b.len * (u64::from(b.expect.is_some()) + u64::from(b.check.is_some())))
            .fold(0, u64::saturating_add);
        let total = max_steps.saturating_mul(TERMS_PER_STEP);
        Budget {
            per_element: (total / elements.max(1)).clamp(1, max_steps.max(1)),
            elements,
            total,
        }
    }

    /// `d`, a reference's error, with the total budget explained when the element's share
    /// (not `--max-steps` itself) was what it ran past.
    pub(crate) fn explain(&self, mut d: Diag, max_steps: u64) -> Diag {
        let what = format!("adds more than {} terms", self.per_element);
        if self.per_element >= max_steps || !d.message.contains(&what) {
            return d;
        }
        d.message = d.message.replace(
            "(the --max-steps limit)",
            "(its share of the verification's budget)",
        );
        d.help = Some(format!(
            "the verification adds at most {TERMS_PER_STEP} × --max-steps = {} terms in all; \
             {} elements are checked, so each may add {}: check the bounds of the sum, or \
             raise --max-steps (n terms per element need --max-steps ≥ {} × n / \
             {TERMS_PER_STEP})",
            self.total, self.elements, self.per_element, self.elements
        ));
        d
    }
}
