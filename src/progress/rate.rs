//! A records-per-second rate over the last few seconds, from samples of a growing count.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back the rate looks.
const WINDOW: Duration = Duration::from_secs(2);

/// Samples of a count over the last [`WINDOW`].
#[derive(Debug, Default)]
pub struct Rate {
    samples: VecDeque<(Instant, u64)>,
}

impl Rate {
    /// Adds `count` seen at `at`; returns the rate per second over the window (0 with fewer
    /// than two samples).
    pub fn sample(&mut self, at: Instant, count: u64) -> f64 {
        self.samples.push_back((at, count));
        while self
            .samples
            .front()
            .is_some_and(|&(t, _)| at.duration_since(t) > WINDOW)
            && self.samples.len() > 2
        {
            self.samples.pop_front();
        }
        let (Some(&(t0, c0)), Some(&(t1, c1))) = (self.samples.front(), self.samples.back()) else {
            return 0.0;
        };
        let secs = t1.duration_since(t0).as_secs_f64();
        if secs <= 0.0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)]
        let delta = c1.saturating_sub(c0) as f64;
        delta / secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_follows_the_last_window() {
        let t = Instant::now();
        let mut r = Rate::default();
        assert_eq!(r.sample(t, 0), 0.0);
        assert_eq!(r.sample(t + Duration::from_secs(1), 100), 100.0);
        // After a pause longer than the window, old samples no longer count.
        r.sample(t + Duration::from_secs(2), 300);
        let rate = r.sample(t + Duration::from_secs(5), 300);
        assert_eq!(rate, 0.0);
    }
}
