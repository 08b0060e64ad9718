//! Histogram buckets: batch latencies in seconds (100 µs to 30 s) and batch sizes in records.

use prometheus_client::metrics::histogram::Histogram;

/// Upper bounds for a batch's time, in seconds.
const SECONDS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    10.0, 30.0,
];

/// Upper bounds for a batch's size, in records.
const RECORDS: [f64; 10] = [
    1.0, 10.0, 50.0, 100.0, 500.0, 1000.0, 2000.0, 4096.0, 10000.0, 100_000.0,
];

/// A histogram of batch times (seconds).
pub fn seconds() -> Histogram {
    Histogram::new(SECONDS)
}

/// A histogram of batch sizes (records).
pub fn records() -> Histogram {
    Histogram::new(RECORDS)
}
