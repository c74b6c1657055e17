//! The report as an SVG chart: the load of every bank over the run, then, for up to four of
//! the hottest shared instructions, the banks their lanes hit.

use crate::{MemSpace, Report};
use plotters::prelude::*;

const WIDTH: u32 = 960;
const TOP_HEIGHT: u32 = 340;
const PANEL_HEIGHT: u32 = 240;

/// XML 1.0 allows no control characters but tab and newline: replace them.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    values: &[u64],
    color: RGBColor,
    y_desc: &str,
) -> Result<(), String> {
    let banks = values.len().max(1) as u32;
    let max = values.iter().copied().max().unwrap_or(0);
    let top = (max + max / 20).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(clean(title), ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(72)
        .build_cartesian_2d((0u32..banks - 1).into_segmented(), 0u64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("bank")
        .y_desc(y_desc)
        .x_labels((banks as usize).min(32))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(b) | SegmentValue::Exact(b) => b.to_string(),
            SegmentValue::Last => String::new(),
        })
        .draw()
        .map_err(|e| e.to_string())?;
    // Bars in bank order, as plotters' Histogram draws them but without its hash map (whose
    // order made a different file each run).
    let segs = (0u32..banks - 1).into_segmented();
    chart
        .draw_series(values.iter().enumerate().filter_map(|(b, &v)| {
            let (x, nx) = (segs.from_index(b)?, segs.from_index(b + 1)?);
            let mut rect = Rectangle::new([(x, v), (nx, 0)], color.filled());
            rect.set_margin(0, 0, 1, 1);
            Some(rect)
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

impl Report {
    /// The SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        let hot: Vec<_> = self
            .costliest(self.per_instruction.len())
            .into_iter()
            .filter(|i| i.space == MemSpace::Shared && i.per_bank.is_some())
            .take(4)
            .collect();
        let height = TOP_HEIGHT + PANEL_HEIGHT * hot.len() as u32;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let (top, rest) = root.split_vertically(TOP_HEIGHT);
            let s = &self.shared;
            bars(
                &top,
                &format!(
                    "{}: words served per bank ({} banks x {} B) - {} wavefronts, {} bank conflicts",
                    self.kernel,
                    self.geometry.banks,
                    self.geometry.bank_bytes,
                    s.wavefronts(),
                    s.bank_conflicts()
                ),
                &self.per_bank,
                RGBColor(0x3b, 0x6e, 0xa8),
                "words served",
            )?;
            let mut area = rest;
            for i in hot {
                let (panel, below) = area.split_vertically(PANEL_HEIGHT);
                let degree = i
                    .conflict_degree
                    .map_or_else(String::new, |d| format!(" - {d}-way"));
                let title = format!(
                    "{}:{} {} shared {} B: {}{degree} ({} executions)",
                    self.file, i.line, i.op, i.width, i.text, i.executions
                );
                let color = if i.conflict_degree.unwrap_or(1) > 1 {
                    RGBColor(0xc0, 0x39, 0x2b)
                } else {
                    RGBColor(0x27, 0xae, 0x60)
                };
                match &i.first_access {
                    // One execution shows the pile-up on a bank that the totals over a run
                    // (conflicts that move from bank to bank) smooth away.
                    Some(sm) => {
                        let lanes: Vec<u64> = sm.lanes_per_bank.iter().map(|&v| v as u64).collect();
                        let file = self.file.rsplit('/').next().unwrap_or(&self.file);
                        // The accessed element only (a store's text also holds its value).
                        let mut text: String = i.text.split(" = ").next().unwrap_or("").into();
                        if i.text.starts_with('(') {
                            text = i.text.rsplit(" = ").next().unwrap_or("").into();
                        }
                        if text.chars().count() > 40 {
                            text = text.chars().take(39).collect::<String>() + "…";
                        }
                        let title = format!(
                            "{file}:{} {} {text}: lanes per bank, one execution (block {},{},{} warp {}): {} wavefronts{degree}",
                            i.line, i.op, sm.block[0], sm.block[1], sm.block[2], sm.warp, sm.wavefronts
                        );
                        bars(&panel, &title, &lanes, color, "lanes")?;
                    }
                    None => bars(
                        &panel,
                        &title,
                        i.per_bank.as_deref().unwrap_or(&[]),
                        color,
                        "words served",
                    )?,
                }
                area = below;
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}
