//! The live rate and ETA of a connector's line, from samples of growing counts taken at each
//! redraw. The instants are passed in, so the arithmetic is tested without a clock.
//!
//! The rate is the growth over the last [`RATE_WINDOW`] while the connector's tasks are moving
//! records; once they are all idle (or ended) it is 0 at once, not an average that takes the
//! window to decay. The ETA divides what is left of the input by the input's rate over the last
//! [`ETA_WINDOW`], and is unknown until that rate was measured over [`ETA_MIN_SPAN`]: it does not
//! start at 0 and jump once the first bytes were read.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the live rate looks.
const RATE_WINDOW: Duration = Duration::from_secs(2);
/// How far back the ETA's rate looks: longer than the live rate's, so the ETA is steadier.
const ETA_WINDOW: Duration = Duration::from_secs(10);
/// How long the input must have been measured before an ETA is given.
const ETA_MIN_SPAN: Duration = Duration::from_millis(500);

/// Samples of a growing count over a window.
#[derive(Debug)]
struct Window {
    span: Duration,
    samples: VecDeque<(Instant, u64)>,
}

impl Window {
    fn new(span: Duration) -> Self {
        Self {
            span,
            samples: VecDeque::new(),
        }
    }

    /// Adds `count` at `at`, dropping the samples older than the window (keeping one at or
    /// before its start, so the window is covered).
    fn push(&mut self, at: Instant, count: u64) {
        if self.samples.back().is_some_and(|&(t, _)| at < t) {
            return;
        }
        self.samples.push_back((at, count));
        while self.samples.len() > 2
            && self
                .samples
                .get(1)
                .is_some_and(|&(t, _)| at.duration_since(t) >= self.span)
        {
            self.samples.pop_front();
        }
    }

    /// Growth per second from the oldest sample to the newest, and the time between them.
    fn per_second(&self) -> (f64, Duration) {
        let (Some(&(t0, c0)), Some(&(t1, c1))) = (self.samples.front(), self.samples.back()) else {
            return (0.0, Duration::ZERO);
        };
        let span = t1.duration_since(t0);
        let secs = span.as_secs_f64();
        if secs <= 0.0 {
            return (0.0, span);
        }
        #[allow(clippy::cast_precision_loss)]
        let delta = c1.saturating_sub(c0) as f64;
        (delta / secs, span)
    }

    fn clear(&mut self) {
        self.samples.clear();
    }
}

/// The live records-per-second rate of one line.
#[derive(Debug)]
pub struct Rate(Window);

impl Default for Rate {
    fn default() -> Self {
        Self(Window::new(RATE_WINDOW))
    }
}

impl Rate {
    /// Adds `count` seen at `at`; returns the rate per second over the window, or 0 when the
    /// tasks are not `moving` records (idle, stopped or failed) or fewer than two samples were
    /// taken. A pause forgets the samples before it, so a resumed copy is measured afresh.
    pub fn sample(&mut self, at: Instant, count: u64, moving: bool) -> f64 {
        if !moving {
            self.0.clear();
        }
        self.0.push(at, count);
        if moving {
            self.0.per_second().0
        } else {
            0.0
        }
    }
}

/// The estimated time left to read an input of known size.
#[derive(Debug)]
pub struct Eta(Window);

impl Default for Eta {
    fn default() -> Self {
        Self(Window::new(ETA_WINDOW))
    }
}

impl Eta {
    /// Adds `done` of `total` seen at `at`; returns the time left at the input's rate over the
    /// window, `Some(ZERO)` once everything is done, `None` while the rate is not known (less
    /// than [`ETA_MIN_SPAN`] measured, or nothing read in the window).
    pub fn sample(&mut self, at: Instant, done: u64, total: u64) -> Option<Duration> {
        if done < self.0.samples.back().map_or(0, |&(_, d)| d) {
            // A smaller input (a file replaced): measure afresh.
            self.0.clear();
        }
        self.0.push(at, done);
        if done >= total {
            return Some(Duration::ZERO);
        }
        let (per_second, span) = self.0.per_second();
        if span < ETA_MIN_SPAN || per_second <= 0.0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)]
        let left_ms = ((total - done) as f64 / per_second * 1e3).round();
        // Whole milliseconds (a float cast saturates; the value is positive).
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(Duration::from_millis(left_ms as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_rate_follows_the_last_window() {
        let t = Instant::now();
        let mut r = Rate::default();
        assert_eq!(r.sample(t, 0, true), 0.0);
        assert_eq!(r.sample(t + ms(1000), 100, true), 100.0);
        r.sample(t + ms(2000), 300, true);
        // The window covers the last 2 s: (700 - 100) / 2 s.
        assert_eq!(r.sample(t + ms(3000), 700, true), 300.0);
        // Stalled while still busy: the rate falls as the window moves on.
        r.sample(t + ms(4000), 700, true);
        assert_eq!(r.sample(t + ms(5000), 700, true), 0.0);
    }

    #[test]
    fn the_rate_is_zero_as_soon_as_the_copy_ends() {
        let t = Instant::now();
        let mut r = Rate::default();
        for i in 0..=10u64 {
            r.sample(t + ms(200 * i), 200_000 * i, true);
        }
        assert_eq!(r.sample(t + ms(2200), 2_200_000, true), 1_000_000.0);
        // The tasks went idle at the next redraw: 0 now, not 2 s of decay.
        assert_eq!(r.sample(t + ms(2400), 2_300_000, false), 0.0);
        assert_eq!(r.sample(t + ms(2600), 2_300_000, false), 0.0);
        // A copy that starts again is measured from its own start only.
        assert_eq!(r.sample(t + ms(2800), 2_300_000, true), 0.0);
        assert_eq!(r.sample(t + ms(3000), 2_300_100, true), 250.0);
    }

    #[test]
    fn the_eta_is_unknown_until_a_rate_is_measured_then_steady() {
        let t = Instant::now();
        let mut e = Eta::default();
        let total = 10_000;
        assert_eq!(e.sample(t, 0, total), None);
        // 1 % read after one redraw: too short to tell, so no ETA (not 0 s).
        assert_eq!(e.sample(t + ms(200), 100, total), None);
        assert_eq!(e.sample(t + ms(400), 200, total), None);
        // 500 ms measured at 500 bytes/s: 9,750 bytes left.
        assert_eq!(e.sample(t + ms(500), 250, total), Some(ms(19_500)));
        // At a steady rate the ETA counts down with the clock.
        let mut last = Duration::MAX;
        for i in 1..=20u64 {
            let left = e
                .sample(t + ms(500 + 200 * i), 250 + 100 * i, total)
                .expect("known");
            assert!(left < last, "{left:?} after {last:?}");
            assert_eq!(left, ms(19_500 - 200 * i));
            last = left;
        }
        assert_eq!(e.sample(t + ms(60_000), total, total), Some(Duration::ZERO));
    }

    #[test]
    fn a_stalled_input_has_no_eta_and_a_smaller_one_is_measured_afresh() {
        let t = Instant::now();
        let mut e = Eta::default();
        e.sample(t, 0, 1000);
        assert_eq!(e.sample(t + ms(1000), 100, 1000), Some(ms(9000)));
        // Nothing read for longer than the window.
        assert_eq!(e.sample(t + ms(12_000), 100, 1000), None);
        assert_eq!(e.sample(t + ms(13_000), 100, 1000), None);
        // The input was replaced by a smaller one.
        assert_eq!(e.sample(t + ms(14_000), 10, 500), None);
        assert_eq!(e.sample(t + ms(15_000), 60, 500), Some(ms(8800)));
    }
}
