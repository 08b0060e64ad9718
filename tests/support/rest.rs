//! Running the real binary with its REST API for a test: start, find the port in the log,
//! and kill the process if the test fails before stopping it.

use std::path::Path;
use std::process::Child;
use std::time::Duration;

use super::http::Client;
use super::{wait_for, Workdir};

/// How long a worker may take to serve its REST API.
pub const STARTUP: Duration = Duration::from_secs(60);

/// A running worker that is killed if the test ends before stopping it.
pub struct Running {
    pub child: Child,
    pub client: Client,
    pub port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The port of `REST API listening on http://127.0.0.1:PORT` in a log.
pub fn rest_port(log: &str) -> Option<u16> {
    let marker = "REST API listening on http://127.0.0.1:";
    let at = log.find(marker)? + marker.len();
    let digits: String = log[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Starts `connect-rs standalone` with these files and waits for its REST API.
pub fn start(w: &Workdir, files: &[&Path]) -> Running {
    let mut args = vec!["standalone".to_owned()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    start_args(w, &args)
}

/// Starts `connect-rs ARGS...` and waits for its REST API.
pub fn start_args(w: &Workdir, args: &[String]) -> Running {
    let mut child = w.spawn_args(args);
    let mut port = None;
    wait_for("the REST API to listen", STARTUP, || {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("connect-rs exited with {status}; its log:\n{}", w.log());
        }
        port = rest_port(&w.log());
        port.is_some()
    });
    let port = port.unwrap_or_else(|| unreachable!());
    Running {
        child,
        client: Client::local(port),
        port,
    }
}

/// Waits until connector `name` and all its tasks (at least one) are RUNNING.
#[track_caller]
pub fn wait_running(c: &Client, name: &str, timeout: Duration) {
    wait_for(&format!("{name} to be RUNNING"), timeout, || {
        let r = c.get(&format!("/connectors/{name}/status"));
        if r.status != 200 {
            return false;
        }
        let s = r.json();
        let tasks = s["tasks"].as_array().cloned().unwrap_or_default();
        s["connector"]["state"] == "RUNNING"
            && !tasks.is_empty()
            && tasks.iter().all(|t| t["state"] == "RUNNING")
    });
}
