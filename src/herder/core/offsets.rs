//! The core's connector offsets (KIP-875): reading a connector's offsets (a sink's consumer
//! group, a source's offset store), altering and resetting them.

use std::sync::Arc;

use super::HerderCore;
use crate::herder::entities::ConnectorType;
use crate::herder::{HerderError, TargetState};
use crate::plugins::ConnectorPlugin;

/// An offsets alteration or reset the connector accepted, to apply.
enum OffsetsChange {
    /// A sink's group offsets: set (`Some`) or the group deleted (`None`, a reset).
    Sink {
        group: String,
        backend: Arc<dyn crate::topics::TopicBackend>,
        changes: Option<Vec<(crate::topics::TopicPartition, Option<i64>)>>,
        handled: bool,
    },
    /// A source's offsets to store.
    Source {
        entries: Vec<crate::storage::OffsetEntry>,
        handled: bool,
    },
}

impl HerderCore {
    /// The spec kept for connector `name`.
    fn kept_spec(&self, name: &str) -> Result<Arc<crate::worker::ConnectorSpec>, HerderError> {
        self.entry(name)?
            .spec
            .clone()
            .map_err(HerderError::unexpected)
    }

    /// The consumer group of sink connector `name` (from its kept spec).
    pub(crate) fn sink_group(&self, name: &str) -> Result<String, HerderError> {
        let spec = self.kept_spec(name)?;
        Ok(spec
            .consumer_overrides
            .get("group.id")
            .cloned()
            .unwrap_or_else(|| format!("connect-{name}")))
    }

    pub(crate) async fn offsets(&mut self, name: &str) -> Result<serde_json::Value, HerderError> {
        let entry = self.entry(name)?;
        match entry.connector_type {
            ConnectorType::Sink => {
                let group = self.sink_group(name)?;
                let backend = self.worker.topic_backend();
                let offsets = tokio::task::spawn_blocking(move || backend.group_offsets(&group))
                    .await
                    .map_err(HerderError::unexpected)?
                    .map_err(HerderError::unexpected)?;
                Ok(crate::herder::offsets::sink_offsets(&offsets))
            }
            _ => Ok(crate::herder::offsets::source_offsets(
                self.worker.offset_store().connector_offsets(name),
            )),
        }
    }

    pub(crate) async fn alter_offsets(
        &mut self,
        name: &str,
        offsets: Option<Vec<serde_json::Value>>,
        auto_stop: bool,
    ) -> Result<String, HerderError> {
        let target = self.entry(name)?.target;
        if offsets.as_ref().is_some_and(Vec::is_empty) {
            return Err(HerderError::BadRequest(
                "Partitions / offsets need to be provided for an alter offsets request".to_owned(),
            ));
        }
        if target != TargetState::Stopped && !auto_stop {
            return Err(HerderError::BadRequest(format!(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
            )));
        }
        // Check the request before stopping anything: its shape, then the connector's own
        // checks (Kafka Connect's `alterOffsets`, on an instance that is not started, with the
        // resolved configuration; a reset passes every known partition with a null offset).
        // Resolved now, as at a start: a secret changed while the connector was stopped counts.
        let config = self.entry(name)?.config.clone();
        let spec = self
            .build_spec(name, config)
            .map_err(HerderError::unexpected)?;
        let refused = |e: connect_api::ConnectError| {
            HerderError::Internal(spec.redactor.redact(&e.to_string()).into_owned())
        };
        let change = match &spec.plugin {
            ConnectorPlugin::Sink(plugin) => {
                let group = self.sink_group(name)?;
                let backend = self.worker.topic_backend();
                let changes = match &offsets {
                    Some(list) => crate::herder::offsets::parse_sink(list)?,
                    None => {
                        let group = group.clone();
                        let backend = backend.clone();
                        tokio::task::spawn_blocking(move || backend.group_offsets(&group))
                            .await
                            .map_err(HerderError::unexpected)?
                            .map_err(HerderError::unexpected)?
                            .into_keys()
                            .map(|tp| (tp, None))
                            .collect()
                    }
                };
                let handled = plugin
                    .new_connector()
                    .alter_offsets(&spec.props, &changes)
                    .map_err(refused)?;
                let changes = offsets.is_some().then_some(changes);
                OffsetsChange::Sink {
                    group,
                    backend,
                    changes,
                    handled,
                }
            }
            ConnectorPlugin::Source(plugin) => {
                let store = self.worker.offset_store();
                let changes = match &offsets {
                    Some(list) => crate::herder::offsets::parse_source(list)?,
                    None => store
                        .connector_offsets(name)
                        .into_iter()
                        .map(|(p, _)| (Some(p), None))
                        .collect(),
                };
                let handled = plugin
                    .new_connector()
                    .alter_offsets(&spec.props, &changes)
                    .map_err(refused)?;
                OffsetsChange::Source {
                    entries: crate::herder::offsets::source_entries(changes)?,
                    handled,
                }
            }
        };
        if target != TargetState::Stopped {
            self.set_target(name, TargetState::Stopped).await?;
        }
        let (result, handled) = match change {
            OffsetsChange::Sink {
                group,
                backend,
                changes,
                handled,
            } => (
                tokio::task::spawn_blocking(move || match changes {
                    Some(changes) => backend.alter_group_offsets(&group, &changes),
                    None => backend.delete_group(&group),
                })
                .await
                .map_err(HerderError::unexpected)
                .and_then(|r| r.map_err(HerderError::unexpected)),
                handled,
            ),
            OffsetsChange::Source { entries, handled } => (
                self.worker
                    .offset_store()
                    .put(name, entries)
                    .await
                    .map_err(HerderError::unexpected),
                handled,
            ),
        };
        if target != TargetState::Stopped {
            self.set_target(name, target).await?;
        }
        result?;
        Ok(crate::herder::offsets::altered_message(
            offsets.is_some(),
            handled,
        ))
    }
}
