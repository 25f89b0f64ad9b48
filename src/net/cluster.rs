//! A cluster as a client sees it: bootstrap addresses, the brokers its metadata names, a
//! connection per broker opened when first needed, and Kafka's retries with backoff.

use std::collections::BTreeMap;
use std::time::Instant;

use kafka_protocol::messages::metadata_request::MetadataRequestTopic;
use kafka_protocol::messages::{MetadataRequest, MetadataResponse, TopicName};
use kafka_protocol::protocol::StrBytes;

use super::address::Address;
use super::config::ClientConfig;
use super::connection::Connection;
use super::errors::KafkaError;
use super::NetError;

/// A cluster reached through its bootstrap addresses.
#[derive(Debug)]
pub struct Cluster {
    config: ClientConfig,
    bootstrap: Vec<Address>,
    /// The brokers of the last metadata, by node id.
    brokers: BTreeMap<i32, Address>,
    /// The controller the last metadata named.
    controller: Option<i32>,
    connections: BTreeMap<i32, Connection>,
}

impl NetError {
    /// Whether Kafka's clients retry after it (with a metadata refresh): a broken or silent
    /// connection, a leader or topic the broker does not know yet.
    pub fn is_retriable(&self) -> bool {
        match self {
            NetError::Disconnected { .. } | NetError::AuthenticationTerminated { .. } => true,
            NetError::Timeout { unreachable, .. } => unreachable.is_none(),
            NetError::Kafka(e) => e.is_metadata_retriable(),
            _ => false,
        }
    }
}

impl Cluster {
    /// A cluster reached through `bootstrap`; nothing is connected before the first call.
    pub fn new(bootstrap: Vec<Address>, config: ClientConfig) -> Self {
        Cluster {
            config,
            bootstrap,
            brokers: BTreeMap::new(),
            controller: None,
            connections: BTreeMap::new(),
        }
    }

    /// The client's configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The node ids of the brokers of the last metadata.
    pub fn broker_ids(&self) -> Vec<i32> {
        self.brokers.keys().copied().collect()
    }

    /// The bootstrap addresses (a second client of the same cluster starts from them).
    pub fn bootstrap(&self) -> &[Address] {
        &self.bootstrap
    }

    /// A connection to any broker: an open one, else a broker of the last metadata, else a
    /// bootstrap address (node -1, -2, ... as Kafka numbers them), tried in turn.
    /// `call` names the caller in Kafka's timeout message; the wait for a broker lasts at most
    /// `default.api.timeout.ms`.
    pub fn any(&mut self, call: &str) -> Result<&mut Connection, NetError> {
        let node = match self.connections.keys().next() {
            Some(node) => *node,
            None => self.connect_any(call)?,
        };
        self.connections
            .get_mut(&node)
            .ok_or_else(|| NetError::Timeout {
                message: format!("Timed out waiting for a node assignment. Call: {call}"),
                unreachable: None,
            })
    }

    fn connect_any(&mut self, call: &str) -> Result<i32, NetError> {
        let deadline = Instant::now() + self.config.api_timeout;
        let mut candidates: Vec<(i32, Address)> =
            self.brokers.iter().map(|(n, a)| (*n, a.clone())).collect();
        for (i, a) in self.bootstrap.iter().enumerate() {
            candidates.push((-1 - i32::try_from(i).unwrap_or(0), a.clone()));
        }
        let mut attempt = 0;
        loop {
            let mut unreachable = None;
            for (node, address) in &candidates {
                match Connection::open(address, *node, &self.config) {
                    Ok(conn) => {
                        self.connections.insert(*node, conn);
                        return Ok(*node);
                    }
                    Err(NetError::Disconnected { .. }) => {
                        unreachable = Some(unreachable_warning(*node, address));
                    }
                    Err(NetError::AuthenticationTerminated { .. }) => {
                        unreachable = Some(terminated_warning(*node, address));
                    }
                    Err(e) => return Err(e),
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout {
                    message: format!("Timed out waiting for a node assignment. Call: {call}"),
                    unreachable,
                });
            }
            std::thread::sleep(self.config.backoff(attempt).min(left));
            attempt += 1;
        }
    }

    /// The connection to broker `node`, opened if needed.
    pub fn node(&mut self, node: i32) -> Result<&mut Connection, NetError> {
        use std::collections::btree_map::Entry;
        match self.connections.entry(node) {
            Entry::Occupied(open) => Ok(open.into_mut()),
            Entry::Vacant(slot) => {
                let address = self.brokers.get(&node).ok_or_else(|| {
                    NetError::Kafka(KafkaError {
                        code: 6,
                        message: Some(format!("The node {node} is not in the cluster's metadata")),
                    })
                })?;
                Ok(slot.insert(Connection::open(address, node, &self.config)?))
            }
        }
    }

    /// Forgets the connection to `node` (after it failed: the next call opens a new one).
    pub fn drop_connection(&mut self, node: i32) {
        self.connections.remove(&node);
    }

    /// The controller of the last metadata, or any broker.
    pub fn controller(&mut self, call: &str) -> Result<&mut Connection, NetError> {
        match self.controller.filter(|c| self.brokers.contains_key(c)) {
            Some(node) => self.node(node),
            None => self.any(call),
        }
    }

    /// A Metadata request for `topics` (all topics with `None`) from any broker; the
    /// brokers and controller it names are kept for [`Self::node`].
    pub fn metadata(
        &mut self,
        topics: Option<&[&str]>,
        auto_create: bool,
        call: &str,
    ) -> Result<MetadataResponse, NetError> {
        let request = MetadataRequest::default()
            .with_topics(topics.map(|names| {
                names
                    .iter()
                    .map(|n| {
                        MetadataRequestTopic::default()
                            .with_name(Some(TopicName(StrBytes::from_string((*n).to_string()))))
                    })
                    .collect()
            }))
            .with_allow_auto_topic_creation(auto_create);
        let conn = self.any(call)?;
        let node = conn.node();
        let response = match conn.call(&request) {
            Ok(r) => r,
            Err(e) => {
                self.drop_connection(node);
                return Err(e);
            }
        };
        self.brokers = response
            .brokers
            .iter()
            .filter_map(|b| {
                Some((
                    b.node_id.0,
                    Address {
                        host: b.host.as_str().to_string(),
                        port: u16::try_from(b.port).ok()?,
                    },
                ))
            })
            .collect();
        self.controller = Some(response.controller_id.0).filter(|c| *c >= 0);
        Ok(response)
    }

    /// Runs `f` until it succeeds, fails for good, or `default.api.timeout.ms` passes:
    /// a retriable error ([`NetError::is_retriable`]) waits `retry.backoff.ms`, doubled each
    /// time up to `retry.backoff.max.ms`, then `f` runs again (it refreshes what it needs).
    /// Past the deadline, the last error is returned.
    pub fn with_retries<T>(
        &mut self,
        mut f: impl FnMut(&mut Cluster) -> Result<T, NetError>,
    ) -> Result<T, NetError> {
        let deadline = Instant::now() + self.config.api_timeout;
        let mut attempt = 0;
        loop {
            match f(self) {
                Ok(v) => return Ok(v),
                Err(e) if e.is_retriable() => {
                    if let NetError::Disconnected { node, .. } = &e {
                        self.drop_connection(*node);
                    }
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(e);
                    }
                    std::thread::sleep(self.config.backoff(attempt).min(left));
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Kafka's warning when a connection cannot be made:
/// `Connection to node -1 (localhost/127.0.0.1:9092) could not be established. Node may not be available.`
fn unreachable_warning(node: i32, address: &Address) -> String {
    format!(
        "Connection to node {node} ({}) could not be established. Node may not be available.",
        java_address(address)
    )
}

/// Kafka's `NetworkClient` warning for a connection closed during the TLS handshake or the
/// SASL login (a TLS client at a plaintext port, a firewall).
fn terminated_warning(node: i32, address: &Address) -> String {
    format!(
        "Connection to node {node} ({}) terminated during authentication. This may happen due to any of the following reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue.",
        java_address(address)
    )
}

/// An address as Java's `InetSocketAddress` prints it: `host/ip:port`.
pub fn java_address(address: &Address) -> String {
    let ip = address
        .resolve()
        .first()
        .map_or_else(|| "unresolved".to_string(), |s| s.ip().to_string());
    format!("{}/{ip}:{}", address.host, address.port)
}
