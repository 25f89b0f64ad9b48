//! The client properties kafkit reads, by Kafka's names, with Kafka's defaults.

use std::time::Duration;

use super::sasl::{Credentials, SaslProperties};
use super::tls::{Tls, TlsProperties};
use super::NetError;

/// `security.protocol`: how a connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecurityProtocol {
    /// Kafka's default: neither TLS nor SASL.
    #[default]
    Plaintext,
    /// TLS.
    Ssl,
    /// A SASL login over plain TCP.
    SaslPlaintext,
    /// A SASL login over TLS.
    SaslSsl,
}

impl SecurityProtocol {
    fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_uppercase().as_str() {
            "PLAINTEXT" => Some(SecurityProtocol::Plaintext),
            "SSL" => Some(SecurityProtocol::Ssl),
            "SASL_PLAINTEXT" => Some(SecurityProtocol::SaslPlaintext),
            "SASL_SSL" => Some(SecurityProtocol::SaslSsl),
            _ => None,
        }
    }

    /// Whether connections run TLS.
    pub fn tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }

    /// Whether connections log in with SASL.
    pub fn sasl(self) -> bool {
        matches!(
            self,
            SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl
        )
    }
}

/// How a client talks to a cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// `client.id`, sent in every request header.
    pub client_id: String,
    /// `request.timeout.ms` (30 s): how long a request waits for its response.
    pub request_timeout: Duration,
    /// `default.api.timeout.ms` (60 s): how long a call may take, retries included (the
    /// producer's `max.block.ms` for its metadata).
    pub api_timeout: Duration,
    /// `retry.backoff.ms` (100 ms): the first wait before a retry.
    pub retry_backoff: Duration,
    /// `retry.backoff.max.ms` (1 s): the longest wait between retries (the wait doubles).
    pub retry_backoff_max: Duration,
    /// `socket.connection.setup.timeout.ms` (10 s): how long a connect may take.
    pub connect_timeout: Duration,
    /// `security.protocol` and what it needs (boxed: every producer, consumer and cluster
    /// carries a config, and most speak PLAINTEXT).
    pub security: Box<Security>,
}

/// How connections are secured: `security.protocol`, the TLS configuration and the SASL
/// login, checked from the `ssl.*` and `sasl.*` properties.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Security {
    /// `security.protocol` (PLAINTEXT).
    pub protocol: SecurityProtocol,
    /// The TLS configuration, for SSL and SASL_SSL.
    pub tls: Option<Tls>,
    /// The SASL login, for SASL_PLAINTEXT and SASL_SSL (its `Debug` hides the password).
    pub sasl: Option<Credentials>,
    /// The properties as given (a later one wins), checked into `tls` and `sasl`.
    ssl_properties: TlsProperties,
    sasl_properties: SaslProperties,
}

impl ClientConfig {
    /// Kafka's defaults, with `client_id`.
    pub fn new(client_id: &str) -> Self {
        ClientConfig {
            client_id: client_id.to_string(),
            request_timeout: Duration::from_millis(30_000),
            api_timeout: Duration::from_millis(60_000),
            retry_backoff: Duration::from_millis(100),
            retry_backoff_max: Duration::from_millis(1000),
            connect_timeout: Duration::from_millis(10_000),
            security: Box::default(),
        }
    }

    /// Applies client properties (a file's, then the command line's, in order: a later one
    /// wins), refusing a value Kafka would refuse. The security properties are checked once
    /// all are applied: the TLS configuration (CA and key files read) and the SASL credentials
    /// for the `security.protocol` chosen. Properties it does not use are left alone, as Kafka
    /// only warns of them.
    pub fn apply<'a>(
        mut self,
        properties: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, NetError> {
        for (name, value) in properties {
            let ms = || -> Result<Duration, NetError> {
                let refused = |reason| NetError::Config {
                    name: name.to_string(),
                    value: value.to_string(),
                    reason,
                };
                let n = value
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| refused("Not a number of type LONG"))?;
                u64::try_from(n)
                    .map(Duration::from_millis)
                    .map_err(|_| refused("Value must be at least 0"))
            };
            match name {
                "client.id" => self.client_id = value.to_string(),
                "request.timeout.ms" => self.request_timeout = ms()?,
                "default.api.timeout.ms" | "max.block.ms" => self.api_timeout = ms()?,
                "retry.backoff.ms" => self.retry_backoff = ms()?,
                "retry.backoff.max.ms" => self.retry_backoff_max = ms()?,
                "socket.connection.setup.timeout.ms" => self.connect_timeout = ms()?,
                "security.protocol" => {
                    self.security.protocol =
                        SecurityProtocol::parse(value).ok_or_else(|| NetError::Config {
                            name: name.to_string(),
                            value: value.to_string(),
                            reason:
                                "String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
                        })?
                }
                _ => {
                    let security = &mut *self.security;
                    let _ = security.ssl_properties.set(name, value)
                        || security.sasl_properties.set(name, value);
                }
            }
        }
        let security = &mut *self.security;
        security.tls = match security.protocol.tls() {
            true => Some(security.ssl_properties.build()?),
            false => None,
        };
        security.sasl = match security.protocol.sasl() {
            true => Some(security.sasl_properties.build()?),
            false => None,
        };
        Ok(self)
    }

    /// The wait before retry number `attempt` (0 first): `retry.backoff.ms` doubled each
    /// time, at most `retry.backoff.max.ms` (Kafka's `ExponentialBackoff`, without jitter).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX);
        self.retry_backoff
            .saturating_mul(factor)
            .min(self.retry_backoff_max.max(self.retry_backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_apply_in_order() {
        let c = ClientConfig::new("x")
            .apply([
                ("request.timeout.ms", "5"),
                ("request.timeout.ms", "7"),
                ("foo", "bar"),
            ])
            .unwrap();
        assert_eq!(c.request_timeout, Duration::from_millis(7));
        let e = ClientConfig::new("x")
            .apply([("request.timeout.ms", "-1")])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid value -1 for configuration request.timeout.ms: Value must be at least 0"
        );
        assert_eq!(
            ClientConfig::new("x")
                .apply([("security.protocol", "TLS")])
                .unwrap_err()
                .to_string(),
            "Invalid value TLS for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"
        );
        let plain = ClientConfig::new("x")
            .apply([
                ("security.protocol", "plaintext"),
                ("sasl.mechanism", "PLAIN"),
            ])
            .unwrap();
        assert_eq!(
            (plain.security.tls.is_some(), plain.security.sasl.is_some()),
            (false, false)
        );
        // SASL needs its JAAS entry; the password stays out of every message and Debug.
        let jaas = r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET";"#;
        let sasl = ClientConfig::new("x")
            .apply([
                ("security.protocol", "SASL_SSL"),
                ("sasl.mechanism", "PLAIN"),
                ("sasl.jaas.config", jaas),
            ])
            .unwrap();
        assert_eq!(
            (sasl.security.tls.is_some(), sasl.security.sasl.is_some()),
            (true, true)
        );
        assert!(!format!("{sasl:?}").contains("SECRET"));
        assert!(ClientConfig::new("x")
            .apply([
                ("security.protocol", "SASL_PLAINTEXT"),
                ("sasl.mechanism", "PLAIN")
            ])
            .is_err());
    }

    #[test]
    fn backoff_doubles_up_to_its_max() {
        let c = ClientConfig::new("x");
        assert_eq!(c.backoff(0), Duration::from_millis(100));
        assert_eq!(c.backoff(2), Duration::from_millis(400));
        assert_eq!(c.backoff(9), Duration::from_millis(1000));
        assert_eq!(c.backoff(100), Duration::from_millis(1000));
    }
}
