//! A blocking Kafka client for `--bootstrap-server`: the same commands against a cluster.
//!
//! Kafka's wire messages come from the `kafka-protocol` crate, which is generated from Kafka's
//! own JSON message schemas; the record batches they carry are kafkit's own
//! ([`crate::record`]), so disk and wire share one encoder and one decoder. The client is
//! blocking, over `std::net`, one request/response stream per connection, so no async runtime
//! reaches the library or its callers:
//!
//! - [`address`]: the `bootstrap.servers` list, parsed as Kafka's `ClientUtils` parses it.
//! - [`config`]: the client properties kafkit reads (`request.timeout.ms`, `client.id`, ...),
//!   from `--command-config`/`--producer.config`/`--consumer.config` with Kafka's names.
//! - [`connection`]: one broker connection: frames, correlation ids, `ApiVersions`
//!   negotiation (the highest version both sides support, per API), request timeouts.
//! - [`cluster`]: the bootstrap, metadata (with Kafka's retries and backoff on a leader or a
//!   topic not known yet) and a connection per broker.
//! - [`admin`]: what `topics` asks of a cluster (Kafka's `Admin` calls).
//! - [`configs`]: what `configs` asks (DescribeConfigs, IncrementalAlterConfigs).
//! - [`offsets`]: ListOffsets to each partition's leader.
//! - [`produce`]: Produce requests of batches kafkit's producer built, idempotent by default.
//! - [`fetch`]: Fetch requests feeding a console consumer's partitions.
//! - [`group`]: the classic group protocol to a group's coordinator (a member's
//!   `CoordinatorConnection` over the cluster).
//! - [`groups`]: what `consumer-groups --list`/`--describe` ask (ListGroups, DescribeGroups,
//!   OffsetFetch), as the data directory's `Group` values.
//! - [`records`]: what `delete-records` and `log-dirs` ask (DeleteRecords to the partitions'
//!   leaders, DescribeLogDirs to each broker).
//! - [`errors`]: Kafka's error codes as the exceptions the Java clients throw.
//! - [`tls`]: `security.protocol=SSL`/`SASL_SSL`: rustls over the blocking socket, from the
//!   `ssl.*` properties (PEM stores).
//! - [`sasl`]: `SASL_PLAINTEXT`/`SASL_SSL`: PLAIN and SCRAM-SHA-256/512 logins from
//!   `sasl.mechanism` and `sasl.jaas.config`.
//!
//! Feature `net` (on by default): the library without it has no network code.

pub mod address;
pub mod admin;
pub mod cluster;
pub mod config;
pub mod configs;
pub mod connection;
pub mod errors;
pub mod fetch;
pub mod group;
pub mod groups;
pub mod offsets;
pub mod produce;
pub mod records;
pub mod sasl;
pub mod tls;

pub use address::{parse_bootstrap, Address};
pub use cluster::Cluster;
pub use config::ClientConfig;
pub use connection::Connection;
pub use errors::KafkaError;

/// What can go wrong talking to a cluster.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A client property has a value Kafka refuses (`ConfigException`).
    #[error("Invalid value {value} for configuration {name}: {reason}")]
    Config {
        /// The property.
        name: String,
        /// Its value.
        value: String,
        /// Kafka's reason.
        reason: &'static str,
    },
    /// A `bootstrap.servers` entry that is not `host:port`.
    #[error("Invalid url in bootstrap.servers: {0}")]
    InvalidUrl(String),
    /// No bootstrap entry resolved to an address.
    #[error("No resolvable bootstrap urls given in bootstrap.servers")]
    NoResolvableUrl,
    /// A property asks for what kafkit does not do yet over the network (a group).
    #[error("{name}={value} is not supported yet")]
    Unsupported {
        /// The property.
        name: String,
        /// Its value.
        value: String,
    },
    /// A security property (`ssl.*`, `sasl.*`) kafkit cannot use; the reason never holds the
    /// property's value (it may be a secret).
    #[error("Invalid value for configuration {name}: {reason}")]
    Security {
        /// The property.
        name: String,
        /// Why.
        reason: String,
    },
    /// The broker refused the client's TLS or SASL login (Kafka's `AuthenticationException`s:
    /// not retried, the call fails with it).
    #[error("{message}")]
    Authentication {
        /// The node id.
        node: i32,
        /// Its address, as Java prints it (`host/ip:port`).
        address: String,
        /// The Java exception's simple class name (`SaslAuthenticationException`).
        exception: &'static str,
        /// Kafka's message (the broker's, for a SASL refusal).
        message: String,
        /// What lay under it (the TLS library's reason), shown as Java's `Caused by:`.
        cause: Option<String>,
    },
    /// The connection closed (or stalled) during the TLS handshake or the SASL login: Kafka's
    /// client warns and tries again (a plaintext port answering a TLS client, a firewall).
    #[error("Connection to node {node} ({address}) terminated during authentication: {source}")]
    AuthenticationTerminated {
        /// The node id.
        node: i32,
        /// Its address.
        address: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Kafka's `TimeoutException`: a call did not complete within its timeout.
    #[error("{message}")]
    Timeout {
        /// Kafka's message.
        message: String,
        /// Why no broker answered, when it was that (Kafka's `Connection to node ... could
        /// not be established` warning).
        unreachable: Option<String>,
    },
    /// The connection failed or closed while a call was in flight.
    #[error("Connection to node {node} ({address}) terminated during a request: {source}")]
    Disconnected {
        /// The node id (-1 and below: a bootstrap address).
        node: i32,
        /// Its address.
        address: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The broker's bytes do not decode as the message they should be.
    #[error("Malformed {api} response from node {node}: {message}")]
    Protocol {
        /// The API.
        api: &'static str,
        /// The node.
        node: i32,
        /// What the decoder said.
        message: String,
    },
    /// A request kafkit could not encode (a value its version cannot carry).
    #[error("Could not encode a {api} request: {message}")]
    Encode {
        /// The API.
        api: &'static str,
        /// What the encoder said.
        message: String,
    },
    /// The broker supports no version of an API kafkit needs: Kafka's client-side
    /// `UnsupportedVersionException` (`NodeApiVersions.latestUsableVersion`'s words).
    #[error("The node does not support {api}{}", unsupported_range(*.min, *.max, *.broker))]
    UnsupportedApi {
        /// The API, as Kafka's `ApiKeys` constant (`CREATE_PARTITIONS`).
        api: String,
        /// kafkit's lowest version.
        min: i16,
        /// kafkit's highest version.
        max: i16,
        /// The broker's versions, `None` when it does not list the API at all.
        broker: Option<(i16, i16)>,
    },
    /// The broker answered with an error code.
    #[error("{0}")]
    Kafka(#[from] KafkaError),
}

/// The rest of Kafka's message for an API the broker has, but at no version kafkit speaks.
fn unsupported_range(min: i16, max: i16, broker: Option<(i16, i16)>) -> String {
    match broker {
        None => String::new(),
        Some((lo, hi)) => {
            format!(" with version in range [{min},{max}]. The supported range is [{lo},{hi}].")
        }
    }
}
