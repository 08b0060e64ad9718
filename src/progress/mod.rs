//! What a running worker shows a person at a terminal: one live line per connector (state,
//! records and bytes in and out, rate; a bar with percentage and ETA for a source reading an
//! input of known size; the lag of a sink), and a summary per connector when the worker stops.
//!
//! The live lines are drawn with `indicatif` on stderr only when stderr is a terminal and
//! `--quiet` was not given; log lines are printed above them (see [`log_writer`]) and stay plain
//! lines. The exit summary always goes to the log; on a terminal it is also printed as a table.

mod connector_totals;
mod live_lines;
pub mod log_writer;
mod rate;
mod summary;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use connector_totals::ConnectorTotals;
pub use summary::ConnectorSummary;

use crate::herder::HerderHandle;
use crate::worker::{TaskActivity, TaskBoard};

/// How often the display samples the tasks and redraws.
const TICK: Duration = Duration::from_millis(200);

/// The progress display of one worker run: samples the task board until [`Self::finish`].
pub struct ProgressDisplay {
    stop: CancellationToken,
    sampler: tokio::task::JoinHandle<Seen>,
    live: bool,
}

/// Every task cell seen during the run, by task name (the latest instance of each), so that
/// the summary still counts tasks the worker has stopped and forgotten.
#[derive(Default)]
struct Seen(BTreeMap<String, Arc<TaskActivity>>);

impl Seen {
    fn update(&mut self, board: &TaskBoard) {
        for cell in board.cells_now() {
            match self.0.get(&cell.name) {
                Some(known) if Arc::ptr_eq(known, &cell) => {}
                _ => {
                    self.0.insert(cell.name.clone(), cell);
                }
            }
        }
    }

    /// The cells grouped by connector name.
    fn by_connector(&self) -> BTreeMap<&str, Vec<&TaskActivity>> {
        by_connector(self.0.values().map(Arc::as_ref))
    }
}

/// Task cells grouped by connector name.
fn by_connector<'a>(
    cells: impl Iterator<Item = &'a TaskActivity>,
) -> BTreeMap<&'a str, Vec<&'a TaskActivity>> {
    let mut grouped: BTreeMap<&str, Vec<&TaskActivity>> = BTreeMap::new();
    for cell in cells {
        grouped
            .entry(cell.connector_and_task().0)
            .or_default()
            .push(cell);
    }
    grouped
}

impl ProgressDisplay {
    /// Starts sampling `board`; with `live`, draws the live lines on stderr (the caller checks
    /// that stderr is a terminal and `--quiet` was not given).
    pub fn start(board: TaskBoard, herder: HerderHandle, live: bool) -> Self {
        let stop = CancellationToken::new();
        let sampler = tokio::spawn(sample(board, herder, live, stop.clone()));
        Self {
            stop,
            sampler,
            live,
        }
    }

    /// Whether stderr should show the live lines: it is a terminal and `quiet` is off.
    pub fn wanted(quiet: bool) -> bool {
        !quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
    }

    /// Stops the live lines, then logs a summary line per connector and, when live, prints the
    /// summary table on stderr. Call after the worker stopped, so the counts are final.
    pub async fn finish(self, board: &TaskBoard) -> Vec<ConnectorSummary> {
        self.stop.cancel();
        let mut seen = self.sampler.await.unwrap_or_default();
        seen.update(board);
        let summaries: Vec<ConnectorSummary> = seen
            .by_connector()
            .into_iter()
            .map(|(name, cells)| ConnectorSummary::of(name, &ConnectorTotals::of(&cells)))
            .collect();
        for s in &summaries {
            if s.failed.is_empty() {
                tracing::info!("{}", s.log_line());
            } else {
                tracing::warn!("{}", s.log_line());
            }
        }
        if self.live && !summaries.is_empty() {
            let table = summary::table(&summaries);
            eprint!("{}", crate::config::providers::secrets::redact(&table));
        }
        summaries
    }
}

/// Samples the board every tick until `stop`, drawing the live lines when `live`.
async fn sample(
    board: TaskBoard,
    herder: HerderHandle,
    live: bool,
    stop: CancellationToken,
) -> Seen {
    let mut seen = Seen::default();
    let mut lines = live.then(live_lines::LiveLines::new);
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = ticks.tick() => {}
        }
        seen.update(&board);
        if let Some(lines) = lines.as_mut() {
            let states = live_lines::states(&herder).await;
            // The live lines show the tasks running now.
            let running = board.cells_now();
            lines.draw(&by_connector(running.iter().map(Arc::as_ref)), states);
        }
    }
    if let Some(lines) = lines {
        lines.clear();
    }
    seen
}
