//! `bootstrap.servers`: a comma-separated list of `host:port`, checked as Kafka's
//! `ClientUtils.parseAndValidateAddresses` checks it.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};

use super::NetError;

/// A broker's advertised address, or a bootstrap entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address {
    /// The host name or IP address (without IPv6 brackets).
    pub host: String,
    /// The port.
    pub port: u16,
}

impl Address {
    /// The socket addresses it resolves to (Kafka's `use_all_dns_ips`: each is tried in turn).
    pub fn resolve(&self) -> Vec<SocketAddr> {
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map(Iterator::collect)
            .unwrap_or_default()
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Parses one `host:port` (`[v6]:port` for IPv6) as Kafka's `Utils.getHost`/`getPort`.
fn parse_one(entry: &str) -> Option<Address> {
    let (host, port) = entry.rsplit_once(':')?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let valid_host = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'));
    if !valid_host || port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Address {
        host: host.to_string(),
        port: port.parse().ok()?,
    })
}

/// The addresses of a `bootstrap.servers` list: entries trimmed, empty ones skipped, each
/// `host:port` or Kafka's `Invalid url in bootstrap.servers: <entry>`; none at all is
/// `No resolvable bootstrap urls given in bootstrap.servers`.
pub fn parse_bootstrap(list: &str) -> Result<Vec<Address>, NetError> {
    let mut out = Vec::new();
    for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let address = parse_one(entry).ok_or_else(|| NetError::InvalidUrl(entry.to_string()))?;
        if !out.contains(&address) {
            out.push(address);
        }
    }
    if out.is_empty() {
        return Err(NetError::NoResolvableUrl);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_as_kafkas() {
        let a = parse_bootstrap(" localhost:9092, 127.0.0.1:9093 ,,[::1]:9094").unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a[0].to_string(), "localhost:9092");
        assert_eq!(a[2].host, "::1");
        assert_eq!(a[2].to_string(), "[::1]:9094");
        for bad in [
            "localhost",
            "localhost:",
            ":9092",
            "host:port",
            "a b:1",
            "h:99999",
        ] {
            assert_eq!(
                parse_bootstrap(bad).unwrap_err().to_string(),
                format!("Invalid url in bootstrap.servers: {bad}"),
                "{bad}"
            );
        }
        assert_eq!(
            parse_bootstrap(" , ").unwrap_err().to_string(),
            "No resolvable bootstrap urls given in bootstrap.servers"
        );
    }
}
