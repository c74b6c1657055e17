//! One SM's warps over time as Chrome trace-event JSON (opens in Perfetto or
//! chrome://tracing): a track per warp slot, a span per warp state.

use crate::sim::Span;
use std::fmt::Write;

/// The trace-event JSON of `spans` (one SM), with time in microseconds at `clock_mhz`.
pub fn chrome_trace(spans: &[Span], clock_mhz: f64, gpu: &str, kernel: &str) -> String {
    let mut o = String::with_capacity(spans.len() * 110 + 200);
    o.push_str("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    let _ = write!(
        o,
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{{\"name\":\"{} SM 0: {}\"}}}}",
        esc(gpu),
        esc(kernel)
    );
    let mut warps: Vec<u32> = spans.iter().map(|s| s.warp).collect();
    warps.sort_unstable();
    warps.dedup();
    for w in warps {
        let _ = write!(
            o,
            ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":{w},\"args\":{{\"name\":\"warp slot {w}\"}}}}"
        );
    }
    let us = |c: u64| c as f64 / clock_mhz;
    for s in spans {
        let _ = write!(
            o,
            ",\n{{\"name\":\"{}\",\"ph\":\"X\",\"pid\":0,\"tid\":{},\"ts\":{:.4},\"dur\":{:.4},\"args\":{{\"block\":{},\"cycles\":{}}}}}",
            s.reason.name(),
            s.warp,
            us(s.from),
            us(s.to - s.from),
            s.block,
            s.to - s.from
        );
    }
    o.push_str("\n]}\n");
    o
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
