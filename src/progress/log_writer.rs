//! Log lines on stderr while live progress lines are drawn there: each line is printed above
//! the bars (the bars are hidden, the line written, the bars redrawn), so logs stay plain lines.
//! Every line is written with the values config providers resolved replaced by their
//! placeholders ([`crate::config::providers::secrets`]), whatever logged it and at any level.

use std::io::Write;
use std::sync::{Mutex, PoisonError};

use indicatif::MultiProgress;

/// The bars being drawn, if any.
static LIVE: Mutex<Option<MultiProgress>> = Mutex::new(None);

/// Prints log lines above `bars` from now on (`None`: straight to stderr).
pub fn show_above(bars: Option<MultiProgress>) {
    *LIVE.lock().unwrap_or_else(PoisonError::into_inner) = bars;
}

/// A `tracing` writer to stderr that prints above the live progress lines, resolved secrets
/// masked.
#[derive(Debug, Clone, Copy, Default)]
pub struct StderrAboveProgress;

impl Write for StderrAboveProgress {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let redacted = crate::config::providers::secrets::redact_bytes(buf);
        let buf: &[u8] = &redacted;
        let bars = LIVE.lock().unwrap_or_else(PoisonError::into_inner).clone();
        match bars {
            Some(bars) => bars.suspend(|| std::io::stderr().write_all(buf)),
            None => std::io::stderr().write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for StderrAboveProgress {
    type Writer = Self;

    fn make_writer(&'a self) -> Self::Writer {
        *self
    }
}
