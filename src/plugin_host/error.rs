//! Why the plugin host could not answer.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// An exception thrown on the Java side, as its `ERR` frame carries it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct JavaError {
    /// The exception's class name.
    #[serde(rename = "class")]
    pub class: String,
    /// Its message, when it has one.
    pub message: Option<String>,
    /// The full `printStackTrace` text (causes included), as Kafka Connect puts in a status
    /// `trace`.
    pub trace: String,
    /// Whether it is a `RetriableException` (Connect's or the Kafka clients').
    pub retriable: bool,
}

impl std::fmt::Display for JavaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message {
            Some(m) => write!(f, "{}: {m}", self.class),
            None => f.write_str(&self.class),
        }
    }
}

/// How a plugin host JVM ended: its exit and the last lines it wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Death {
    /// The host's generation (1 for the first JVM of this worker).
    pub generation: u64,
    /// `exit status 1`, `killed by signal 9 (SIGKILL)`, ...
    pub status: String,
    /// Why connect-rs noticed (`the JVM exited`, `no answer to PING within 30000 ms`, ...).
    pub cause: String,
    /// Its last stderr lines, oldest first.
    pub stderr: Vec<String>,
}

impl std::fmt::Display for Death {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "plugin host JVM (generation {}) exited: {}; {}",
            self.generation, self.status, self.cause
        )?;
        if self.stderr.is_empty() {
            f.write_str("; it wrote nothing to stderr")
        } else {
            write!(f, "; last stderr lines: {}", self.stderr.join(" | "))
        }
    }
}

/// Why the plugin host could not answer.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The binary was built without the Java side (javac or Kafka's jars were missing).
    #[error("this connect-rs was built without the Java plugin host: {reason}; install a JDK 17 and Maven and rebuild")]
    BuiltWithoutHost {
        /// What the build found missing.
        reason: String,
    },
    /// No Java executable was found.
    #[error("no Java was found to run the plugin host (tried: {}); install Java 17 or later, or set JAVA_HOME, put java on PATH, or set plugin.host.java", tried.join("; "))]
    NoJava {
        /// Each place looked at, and what was there.
        tried: Vec<String>,
    },
    /// The Java found is older than 17, or its version could not be read.
    #[error("{java} is {version}, but the plugin host needs Java 17 or later: set plugin.host.java or JAVA_HOME to a Java 17+ runtime")]
    JavaTooOld {
        /// The executable.
        java: PathBuf,
        /// What `java -version` said (first line).
        version: String,
    },
    /// The JVM did not connect and say HELLO in time.
    #[error("the plugin host JVM did not start within {} ms (plugin.host.start.timeout.ms){}", timeout.as_millis(), stderr_tail(stderr))]
    StartTimeout {
        /// The bound.
        timeout: Duration,
        /// Its last stderr lines.
        stderr: Vec<String>,
    },
    /// The JVM died (or was killed for not answering); requests in flight fail with it.
    #[error("{0}")]
    Died(Death),
    /// The Java side threw.
    #[error("the plugin host failed: {0}")]
    Remote(JavaError),
    /// A local failure: files, the socket, spawning the JVM.
    #[error("plugin host: {what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The other side broke the protocol.
    #[error("plugin host protocol error: {0}")]
    Protocol(String),
}

impl HostError {
    /// An [`HostError::Io`] for `what`.
    pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        move |source| Self::Io { what, source }
    }

    /// Whether trying again later may succeed (a dead JVM is restarted; a retriable Java
    /// exception).
    pub fn is_retriable(&self) -> bool {
        match self {
            Self::Died(_) | Self::StartTimeout { .. } => true,
            Self::Remote(e) => e.retriable,
            _ => false,
        }
    }
}

fn stderr_tail(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; last stderr lines: {}", lines.join(" | "))
    }
}
