//! A long-lived thread that fsyncs one file on request, so the writer can fsync the commit
//! journal and the partitions at the same time without starting a thread per round. The thread
//! starts with the first request: a worker whose log is never written (an idle one) has no
//! such thread, nor its stack and allocator pages.

use std::cell::OnceCell;
use std::fs::File;
use std::io;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// The fsync thread, started on first use; stops when dropped.
#[derive(Debug)]
pub(crate) struct Syncer {
    name: &'static str,
    worker: OnceCell<Worker>,
}

/// The running thread and its two channels.
#[derive(Debug)]
struct Worker {
    requests: Option<Sender<Arc<File>>>,
    results: Receiver<io::Result<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Syncer {
    /// A syncer whose thread, named `name`, starts with the first [`Self::start`].
    pub(crate) fn new(name: &'static str) -> Self {
        Self {
            name,
            worker: OnceCell::new(),
        }
    }

    /// Starts `fdatasync` of `file`; [`Self::wait`] returns its outcome. One at a time.
    pub(crate) fn start(&self, file: Arc<File>) -> io::Result<()> {
        if self.worker.get().is_none() {
            let started = Worker::spawn(self.name).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot start the fsync thread {}: {e}", self.name),
                )
            })?;
            // Empty just above, and `&self` is not shared between threads (`OnceCell`).
            let _ = self.worker.set(started);
        }
        let worker = self.worker.get().ok_or_else(stopped)?;
        worker
            .requests
            .as_ref()
            .and_then(|r| r.send(file).ok())
            .ok_or_else(stopped)
    }

    /// Waits for the fsync started last.
    pub(crate) fn wait(&self) -> io::Result<()> {
        let worker = self.worker.get().ok_or_else(stopped)?;
        worker.results.recv().map_err(|_| stopped())?
    }
}

impl Worker {
    /// Starts the thread named `name`.
    fn spawn(name: &str) -> io::Result<Self> {
        let (requests, inbox) = mpsc::channel::<Arc<File>>();
        let (outbox, results) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                while let Ok(file) = inbox.recv() {
                    if outbox.send(file.sync_data()).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Self {
            requests: Some(requests),
            results,
            thread: Some(thread),
        })
    }
}

fn stopped() -> io::Error {
    io::Error::other("the fsync thread stopped")
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.requests.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn syncs_on_request_and_stops_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let file = Arc::new(File::create(dir.path().join("f")).unwrap());
        let syncer = Syncer::new("test-fsync");
        assert!(
            syncer.worker.get().is_none(),
            "no thread before the first sync"
        );
        for round in 0..3 {
            (&*file).write_all(b"data").unwrap();
            syncer.start(file.clone()).unwrap();
            syncer.wait().unwrap();
            assert_eq!(file.metadata().unwrap().len(), 4 * (round + 1));
        }
        drop(syncer);
        // The thread released its handle of the file.
        assert_eq!(Arc::strong_count(&file), 1);
    }
}
