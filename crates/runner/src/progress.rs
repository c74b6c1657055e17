//! Progress bars for long runs: a span with target `warpsim::progress`, which the binary's
//! indicatif layer draws on a terminal only (never into a pipe). The bar appears once the work
//! has taken more than [`DELAY`], so quick runs print nothing extra; it shows the items done,
//! the rate and the time left. Where stderr is not a terminal (a log, CI), the same figures
//! come as a line every [`LINE_EVERY`] (events with target `warpsim::progress_line`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};
use tracing_indicatif::span_ext::IndicatifSpanExt;

/// How long work runs before its bar appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// How often a line of progress is logged (for stderr that is not a terminal).
pub const LINE_EVERY: Duration = Duration::from_secs(10);

/// Work of at most this many items looks at the clock at every item (a variant of a sweep may
/// take seconds); longer work (blocks) every 64th.
const FEW_ITEMS: u64 = 4096;

/// A counter of finished items that becomes a bar after `DELAY` (a second). Cheap when no bar is
/// drawn: the clock is read once every 64 items (every item for work of few items).
pub struct Progress {
    span: tracing::Span,
    start: Instant,
    shown: AtomicBool,
    done: AtomicU64,
    /// Warp instructions of blocks still running, reported by [`Progress::steps`].
    steps: AtomicU64,
    /// Items in all, and the seconds (from `start`) of the last line logged.
    len: AtomicU64,
    last_line: AtomicU64,
    what: String,
    unit: String,
}

impl Progress {
    /// Work of `len` items called `unit` (e.g. "blocks"), described by `what`.
    pub fn new(what: &str, len: u64, unit: &str) -> Self {
        // A program's path or name comes from the user: its control characters (a terminal
        // escape sequence in a file name) are escaped before they reach the terminal.
        let what = &*warpsim_kernel::escape::text(what);
        let span = tracing::info_span!(target: "warpsim::progress", "progress");
        let template = format!(
            "{{spinner}} {{msg}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {unit}, \
             {{per_sec}}, {{elapsed}} (eta {{eta}})"
        );
        if let Ok(style) = tracing_indicatif::style::ProgressStyle::with_template(&template) {
            span.pb_set_style(&style.progress_chars("=> "));
        }
        span.pb_set_length(len);
        span.pb_set_message(what);
        Progress {
            span,
            start: Instant::now(),
            shown: AtomicBool::new(false),
            done: AtomicU64::new(0),
            steps: AtomicU64::new(0),
            len: AtomicU64::new(len),
            last_line: AtomicU64::new(0),
            what: what.to_owned(),
            unit: unit.to_owned(),
        }
    }

    /// `n` more items to do.
    pub fn add_len(&self, n: u64) {
        self.len.fetch_add(n, Relaxed);
        self.span.pb_inc_length(n);
    }

    /// One more item done (from any thread).
    pub fn tick(&self) {
        let n = self.done.fetch_add(1, Relaxed) + 1;
        let few = self.len.load(Relaxed) <= FEW_ITEMS;
        if !few && !n.is_multiple_of(64) && !self.shown.load(Relaxed) {
            return;
        }
        if self.show() {
            self.span.pb_set_position(n);
            self.log_line();
        }
    }

    /// `n` more warp instructions run inside blocks (the executor's
    /// [`Validated::with_progress`](warpsim_exec::Validated::with_progress) calls this
    /// every few million), so that the bar says something while one long block runs.
    pub fn steps(&self, n: u64) {
        let total = self.steps.fetch_add(n, Relaxed) + n;
        if self.show() {
            self.span
                .pb_set_message(&format!("{} ({} warp instructions)", self.what, si(total)));
            self.log_line();
        }
    }

    /// Logs [`Progress::line`] when it is due.
    fn log_line(&self) {
        if let Some(l) = self.line(self.start.elapsed()) {
            tracing::info!(target: "warpsim::progress_line", "{l}");
        }
    }

    /// The progress line, if `elapsed` is [`LINE_EVERY`] past the last one (which it then
    /// becomes): items done, time taken, time left at the rate so far.
    fn line(&self, elapsed: Duration) -> Option<String> {
        let secs = elapsed.as_secs();
        let last = self.last_line.load(Relaxed);
        if secs < last + LINE_EVERY.as_secs()
            || (self.last_line)
                .compare_exchange(last, secs, Relaxed, Relaxed)
                .is_err()
        {
            return None;
        }
        let (done, len) = (self.done.load(Relaxed), self.len.load(Relaxed));
        let left = match done {
            0 => "time left not known yet".to_owned(),
            _ => format!(
                "about {:.0} s left",
                elapsed.as_secs_f64() * len.saturating_sub(done) as f64 / done as f64
            ),
        };
        let steps = match self.steps.load(Relaxed) {
            0 => String::new(),
            n => format!(" ({} warp instructions)", si(n)),
        };
        Some(format!(
            "{}{steps}: {done}/{len} {}, {secs} s, {left}",
            self.what, self.unit
        ))
    }

    /// Whether the bar is drawn, starting it once the work has taken [`DELAY`].
    fn show(&self) -> bool {
        if self.shown.load(Relaxed) {
            return true;
        }
        if self.start.elapsed() < DELAY {
            return false;
        }
        if !self.shown.swap(true, Relaxed) {
            self.span.pb_start();
        }
        true
    }
}

/// `n` with an SI prefix: 4.2M, 1.3G.
fn si(n: u64) -> String {
    match n {
        0..1_000_000 => n.to_string(),
        1_000_000..1_000_000_000 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn si_prefixes() {
        assert_eq!(super::si(999_999), "999999");
        assert_eq!(super::si(4_194_304), "4.2M");
        assert_eq!(super::si(1_300_000_000), "1.3G");
    }

    #[test]
    fn a_line_comes_every_ten_seconds_with_the_time_left() {
        use std::time::Duration;
        let p = super::Progress::new("sweep of p.ron", 40, "variants");
        assert_eq!(p.line(Duration::from_secs(5)), None);
        for _ in 0..10 {
            p.done.fetch_add(1, super::Relaxed);
        }
        assert_eq!(
            p.line(Duration::from_secs(12)).as_deref(),
            Some("sweep of p.ron: 10/40 variants, 12 s, about 36 s left")
        );
        assert_eq!(p.line(Duration::from_secs(20)), None);
        assert!(p.line(Duration::from_secs(22)).is_some());
    }

    #[test]
    fn the_description_is_escaped() {
        let p = super::Progress::new("prog\x1b[2J.ron", 1, "blocks");
        assert!(!p.what.contains('\x1b'), "{:?}", p.what);
        assert!(p.what.starts_with("prog") && p.what.ends_with("[2J.ron"));
    }
}
