//! The live lines on a terminal: one `indicatif` bar per connector, redrawn every tick.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use indicatif::{HumanDuration, MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::connector_totals::ConnectorTotals;
use super::log_writer;
use super::rate::{Eta, Rate};
use crate::herder::entities::ConnectorType;
use crate::herder::HerderHandle;
use crate::worker::throughput::human_bytes;
use crate::worker::TaskActivity;

/// How long one redraw waits for the herder's answer before it keeps the states it knew.
const STATUS_WAIT: Duration = Duration::from_millis(150);

/// The bars of the connectors being shown.
pub struct LiveLines {
    multi: MultiProgress,
    bars: BTreeMap<String, Line>,
    states: BTreeMap<String, ConnectorState>,
}

/// What the herder says of a connector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorState {
    /// `RUNNING`, or e.g. `RUNNING (1/2 tasks FAILED)`.
    state: String,
    /// Whether it is a sink connector.
    sink: bool,
}

struct Line {
    bar: ProgressBar,
    rate: Rate,
    eta: Eta,
}

impl LiveLines {
    /// Starts drawing on stderr; log lines are printed above the bars from now on.
    pub fn new() -> Self {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        log_writer::show_above(Some(multi.clone()));
        Self {
            multi,
            bars: BTreeMap::new(),
            states: BTreeMap::new(),
        }
    }

    /// Redraws one line per connector from its task cells and its state (`states`: the
    /// herder's answer of this tick, when it came in time).
    pub fn draw(
        &mut self,
        cells: &BTreeMap<&str, Vec<&TaskActivity>>,
        states: Option<BTreeMap<String, ConnectorState>>,
    ) {
        if let Some(mut states) = states {
            // A connector whose tasks still run keeps its last state while the herder is busy
            // (stopping, for one) and does not list it.
            for name in cells.keys() {
                if let Some(known) = self.states.remove(*name) {
                    states.entry((*name).to_owned()).or_insert(known);
                }
            }
            self.states = states;
        }
        let mut names: Vec<&str> = self.states.keys().map(String::as_str).collect();
        names.extend(cells.keys().copied());
        names.sort_unstable();
        names.dedup();
        let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let now = Instant::now();
        for name in &names {
            let mut totals = cells
                .get(name)
                .map(|c| ConnectorTotals::of(c))
                .unwrap_or_default();
            let known = self.states.get(*name);
            totals.sink |= known.is_some_and(|k| k.sink);
            let state = known.map_or("", |k| k.state.as_str()).to_owned();
            let line = self
                .bars
                .entry((*name).to_owned())
                .or_insert_with(|| Line::new(&self.multi));
            let rate = line.rate.sample(now, totals.records_out, !totals.idle);
            let mut text = message(name, width, &state, &totals, rate);
            if let Some((done, total)) = totals.input {
                let eta = line.eta.sample(now, done, total);
                text.push_str("  ");
                text.push_str(&bar(done, total, eta));
            }
            line.bar.set_message(text);
        }
        // Connectors that are gone lose their line.
        let gone: Vec<String> = self
            .bars
            .keys()
            .filter(|n| !names.contains(&n.as_str()))
            .cloned()
            .collect();
        for name in gone {
            if let Some(line) = self.bars.remove(&name) {
                line.bar.finish_and_clear();
            }
        }
    }

    /// Removes the lines; log lines go straight to stderr again.
    pub fn clear(self) {
        for line in self.bars.values() {
            line.bar.finish_and_clear();
        }
        let _ = self.multi.clear();
        log_writer::show_above(None);
    }
}

impl Line {
    fn new(multi: &MultiProgress) -> Self {
        let bar = multi.add(ProgressBar::no_length());
        bar.set_style(
            ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Self {
            bar,
            rate: Rate::default(),
            eta: Eta::default(),
        }
    }
}

/// Width of the bar between its brackets.
const BAR_WIDTH: u64 = 24;

/// `[============>           ]  52% ETA 2s` for `done` of `total` (`ETA -` while the time
/// left is not known). The percentage is rounded down and the time left up: `100%` and
/// `ETA 0s` mean everything was read.
fn bar(done: u64, total: u64, eta: Option<Duration>) -> String {
    let done = done.min(total);
    let of = |scale: u64| {
        u64::try_from(u128::from(done) * u128::from(scale) / u128::from(total.max(1)))
            .unwrap_or(scale)
    };
    let (filled, percent) = if total == 0 {
        (BAR_WIDTH, 100)
    } else {
        (of(BAR_WIDTH), of(100))
    };
    let mut bar = "=".repeat(usize::try_from(filled).unwrap_or(0));
    if filled < BAR_WIDTH {
        bar.push('>');
        bar.push_str(&" ".repeat(usize::try_from(BAR_WIDTH - filled - 1).unwrap_or(0)));
    }
    // Whole seconds rounded up: `0s` only once everything was read.
    let eta = eta.map_or_else(
        || "-".to_owned(),
        |d| {
            let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
            format!("{:#}", HumanDuration(Duration::from_secs(secs)))
        },
    );
    format!("[{bar}] {percent:>3}% ETA {eta}")
}

/// `src  RUNNING   in 1.20M  out 1.20M 24.0 MB  600k/s` (records in and out, bytes, records
/// per second), plus `lag N` for sinks and `errors N` when there were errors.
fn message(name: &str, width: usize, state: &str, t: &ConnectorTotals, rate: f64) -> String {
    let mut m = format!("{name:<width$}  {state:<8}  in {}", count(t.records_in));
    if t.sink {
        let _ = write!(
            m,
            " {}  out {}",
            human_bytes(t.bytes_in),
            count(t.records_out)
        );
    } else {
        let _ = write!(
            m,
            "  out {} {}",
            count(t.records_out),
            human_bytes(t.bytes_out)
        );
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let per_second = rate.max(0.0).round() as u64;
    let _ = write!(m, "  {}/s", count(per_second));
    if let Some(lag) = t.lag.filter(|_| t.sink) {
        let _ = write!(m, "  lag {}", count(lag));
    }
    if t.errors > 0 {
        let _ = write!(m, "  errors {}", count(t.errors));
    }
    m
}

/// A record count short enough for a terminal line: `950`, `12.3k`, `1.97M`.
fn count(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let f = n as f64;
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}k", f / 1e3),
        1_000_000..=999_999_999 => format!("{:.2}M", f / 1e6),
        _ => format!("{:.2}G", f / 1e9),
    }
}

/// Each connector's state (`RUNNING`, or e.g. `RUNNING (1/2 tasks FAILED)`), or `None` when
/// the herder did not answer in time (it may be busy starting or stopping connectors).
pub async fn states(herder: &HerderHandle) -> Option<BTreeMap<String, ConnectorState>> {
    let ask = async {
        let mut states = BTreeMap::new();
        for name in herder.connectors().await {
            let Ok(status) = herder.connector_status(&name).await else {
                continue;
            };
            let failed = status.tasks.iter().filter(|t| t.state == "FAILED").count();
            let mut state = status.connector.state;
            if failed > 0 {
                state.push_str(&format!(" ({failed}/{} tasks FAILED)", status.tasks.len()));
            }
            let sink = status.connector_type == ConnectorType::Sink;
            states.insert(name, ConnectorState { state, sink });
        }
        states
    };
    tokio::time::timeout(STATUS_WAIT, ask).await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_state_counts_rate_and_lag() {
        let sink = ConnectorTotals {
            sink: true,
            records_in: 10,
            bytes_in: 2000,
            records_out: 8,
            lag: Some(5),
            errors: 1,
            ..ConnectorTotals::default()
        };
        assert_eq!(
            message("dst", 5, "RUNNING", &sink, 4.4),
            "dst    RUNNING   in 10 2.0 KB  out 8  4/s  lag 5  errors 1"
        );
        let source = ConnectorTotals {
            records_in: 1_234_567,
            records_out: 19_999,
            bytes_out: 900,
            ..ConnectorTotals::default()
        };
        assert_eq!(
            message("src", 3, "PAUSED", &source, 0.0),
            "src  PAUSED    in 1.23M  out 20.0k 900 B  0/s"
        );
    }

    #[test]
    fn the_bar_shows_the_part_read_and_the_time_left() {
        assert_eq!(bar(0, 1000, None), "[>                       ]   0% ETA -");
        assert_eq!(
            bar(520, 1000, Some(Duration::from_millis(1400))),
            "[============>           ]  52% ETA 2s"
        );
        // Less than a second left is not nothing left.
        assert_eq!(
            bar(990, 1000, Some(Duration::from_millis(20))),
            "[=======================>]  99% ETA 1s"
        );
        // 99.9 % is not 100 %.
        assert_eq!(
            bar(999, 1000, Some(Duration::from_secs(10))),
            "[=======================>]  99% ETA 10s"
        );
        assert_eq!(
            bar(1000, 1000, Some(Duration::ZERO)),
            "[========================] 100% ETA 0s"
        );
        assert_eq!(
            bar(0, 0, Some(Duration::ZERO)),
            "[========================] 100% ETA 0s"
        );
    }
}
