//! What a connector should be doing, as the config store keeps it.

/// What a connector should be doing (Kafka Connect's `TargetState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    /// Running.
    Started,
    /// Tasks stopped, configuration and task list kept; resumes where it was.
    Paused,
    /// Connector and tasks stopped, task list emptied (KIP-875).
    Stopped,
}
