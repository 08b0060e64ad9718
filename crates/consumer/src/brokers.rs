//! The cluster as one member sees it: brokers, the partitions of its topics and their leaders
//! (from Metadata), and one connection per broker it talks to, made on first use.

use std::collections::{BTreeMap, HashMap};

use connect_membership::connection::Connection;
use connect_membership::MembershipError;
use kafka_protocol::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_protocol::messages::TopicName;
use kafka_protocol::protocol::StrBytes;

use crate::config::ConsumerConfig;

/// A topic partition.
pub type Partition = (String, i32);

/// What the last Metadata answer said about the member's topics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    /// Broker id → `HOST:PORT`.
    pub brokers: BTreeMap<i32, String>,
    /// Topic → partition → leader broker id (-1 while it has none).
    pub leaders: BTreeMap<String, BTreeMap<i32, i32>>,
}

impl Metadata {
    /// The partition count of each known topic.
    pub fn partition_counts(&self) -> BTreeMap<String, i32> {
        self.leaders
            .iter()
            .map(|(t, p)| (t.clone(), p.len() as i32))
            .collect()
    }

    /// The leader of `tp`, when known.
    pub fn leader(&self, tp: &Partition) -> Option<i32> {
        self.leaders
            .get(&tp.0)
            .and_then(|p| p.get(&tp.1))
            .copied()
            .filter(|l| *l >= 0)
    }
}

/// Connections to the cluster's brokers.
#[derive(Debug)]
pub struct Brokers {
    config: ConsumerConfig,
    known: BTreeMap<i32, String>,
    connections: HashMap<i32, Connection>,
    /// A connection to a bootstrap server, until a broker id is known.
    bootstrap: Option<Connection>,
}

impl Brokers {
    /// No connection yet.
    pub fn new(config: ConsumerConfig) -> Self {
        Self {
            config,
            known: BTreeMap::new(),
            connections: HashMap::new(),
            bootstrap: None,
        }
    }

    /// A connection to broker `id` (connected now if needed).
    ///
    /// # Errors
    /// When the broker is unknown or cannot be reached.
    pub async fn connection(&mut self, id: i32) -> Result<&mut Connection, MembershipError> {
        if !self.connections.contains_key(&id) {
            let address = self
                .known
                .get(&id)
                .cloned()
                .ok_or_else(|| MembershipError::NoBroker(format!("broker {id} is unknown")))?;
            let conn = self.connect(&address).await?;
            self.connections.insert(id, conn);
        }
        self.connections
            .get_mut(&id)
            .ok_or_else(|| MembershipError::NoBroker(format!("broker {id}")))
    }

    /// A connection to `address` (`HOST:PORT`), not kept.
    ///
    /// # Errors
    /// When it cannot be reached.
    pub async fn connect(&self, address: &str) -> Result<Connection, MembershipError> {
        Connection::connect(
            address,
            &self.config.client_id,
            self.config.request_timeout,
            &self.config.security,
        )
        .await
    }

    /// Forgets the connection to broker `id` (after an error on it).
    pub fn drop_connection(&mut self, id: i32) {
        self.connections.remove(&id);
    }

    /// Takes the connection to broker `id` out (for a request on another task).
    pub fn take_connection(&mut self, id: i32) -> Option<Connection> {
        self.connections.remove(&id)
    }

    /// Puts back a connection taken with [`Self::take_connection`].
    pub fn put_connection(&mut self, id: i32, conn: Connection) {
        self.connections.insert(id, conn);
    }

    /// Any live connection: a known broker's, else a bootstrap server's.
    async fn any(&mut self) -> Result<&mut Connection, MembershipError> {
        let mut chosen = self.connections.keys().next().copied();
        if chosen.is_none() {
            for id in self.known.keys().copied().collect::<Vec<_>>() {
                if self.connection(id).await.is_ok() {
                    chosen = Some(id);
                    break;
                }
            }
        }
        if let Some(id) = chosen {
            return self.connection(id).await;
        }
        if self.bootstrap.is_none() {
            let mut last = String::from("no bootstrap.servers");
            for server in self.config.bootstrap_servers.clone() {
                match self.connect(&server).await {
                    Ok(c) => {
                        self.bootstrap = Some(c);
                        break;
                    }
                    Err(e) => last = e.to_string(),
                }
            }
            if self.bootstrap.is_none() {
                return Err(MembershipError::NoBroker(last));
            }
        }
        self.bootstrap
            .as_mut()
            .ok_or_else(|| MembershipError::NoBroker("bootstrap".into()))
    }

    /// Metadata of `topics` (`None`: every topic), asking the broker to create absent ones
    /// when `create` is set.
    ///
    /// # Errors
    /// When no broker answers.
    pub async fn metadata(
        &mut self,
        topics: Option<&[String]>,
        create: bool,
    ) -> Result<Metadata, MembershipError> {
        let timeout = self.config.request_timeout;
        let result = async {
            let conn = self.any().await?;
            let version = conn.version::<MetadataRequest>("Metadata", 12)?;
            let request = MetadataRequest::default()
                .with_topics(topics.map(|ts| {
                    ts.iter()
                        .map(|t| {
                            MetadataRequestTopic::default()
                                .with_name(Some(TopicName(StrBytes::from_string(t.clone()))))
                        })
                        .collect()
                }))
                .with_allow_auto_topic_creation(create);
            conn.send(&request, version, timeout).await
        }
        .await;
        let response = match result {
            Ok(r) => r,
            Err(e) => {
                // The connection may be broken: start afresh next time.
                self.connections.clear();
                self.bootstrap = None;
                return Err(e);
            }
        };
        let mut metadata = Metadata::default();
        for b in &response.brokers {
            metadata
                .brokers
                .insert(b.node_id.0, format!("{}:{}", b.host, b.port));
        }
        for t in &response.topics {
            let Some(name) = &t.name else { continue };
            if t.error_code != 0 || t.is_internal {
                continue;
            }
            metadata.leaders.insert(
                name.0.to_string(),
                t.partitions
                    .iter()
                    .map(|p| (p.partition_index, p.leader_id.0))
                    .collect(),
            );
        }
        // A broker that left (or moved) loses its connection.
        self.connections
            .retain(|id, c| metadata.brokers.get(id).is_some_and(|a| a == c.address()));
        self.known = metadata.brokers.clone();
        self.bootstrap = None;
        Ok(metadata)
    }
}
