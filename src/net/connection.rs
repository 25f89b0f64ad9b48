//! One connection to one broker: Kafka's frames (a 4-byte size, a request header, a body),
//! correlation ids, the `ApiVersions` handshake and request timeouts.
//!
//! Blocking, over a `std::net::TcpStream` (with TLS over it for `SSL`/`SASL_SSL`,
//! [`super::tls`], and a SASL login after `ApiVersions` for `SASL_*`, [`super::sasl`]): a
//! request is written whole, and its response read whole before it is decoded. Requests may be pipelined ([`Connection::send`] several, then
//! [`Connection::receive`] their responses in order), as Kafka's
//! `max.in.flight.requests.per.connection` allows.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, RequestHeader, ResponseHeader,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, Request, StrBytes};

use super::address::Address;
use super::config::ClientConfig;
use super::errors::KafkaError;
use super::tls::{HandshakeError, Stream};
use super::NetError;

/// The largest response kafkit reads (a bigger size is a broken or hostile peer): Kafka's
/// `fetch.max.bytes` default is 50 MiB.
pub const MAX_RESPONSE_BYTES: usize = 256 << 20;

/// The highest version of each API kafkit speaks: the versions before topic ids replaced
/// topic names in Produce (13) and Fetch (13), and what the code below fills in.
fn kafkit_max(api: ApiKey) -> i16 {
    match api {
        ApiKey::Produce => 11,
        ApiKey::Fetch => 12,
        ApiKey::ListOffsets => 9,
        ApiKey::Metadata => 12,
        ApiKey::ApiVersions => 3,
        ApiKey::CreateTopics => 7,
        ApiKey::DeleteTopics => 6,
        ApiKey::InitProducerId => 4,
        ApiKey::DescribeConfigs => 4,
        // `configs --alter` and `topics --alter` (`net::configs`, `net::admin`).
        ApiKey::IncrementalAlterConfigs => 1,
        ApiKey::CreatePartitions => 3,
        ApiKey::SaslHandshake => 1,
        ApiKey::SaslAuthenticate => 2,
        // The classic group protocol (`net::group`): FindCoordinator with one key or several
        // (v4), OffsetCommit before KIP-848's member epochs (9) and topic ids (10),
        // OffsetFetch naming one group (v8 names several).
        ApiKey::FindCoordinator => 6,
        ApiKey::JoinGroup => 9,
        ApiKey::SyncGroup => 5,
        ApiKey::Heartbeat => 4,
        ApiKey::LeaveGroup => 5,
        ApiKey::OffsetCommit => 8,
        ApiKey::OffsetFetch => 7,
        ApiKey::ListGroups => 4,
        ApiKey::DescribeGroups => 5,
        ApiKey::DeleteGroups => 2,
        // `delete-records` and `log-dirs` (`net::records`).
        ApiKey::DeleteRecords => 2,
        ApiKey::DescribeLogDirs => 4,
        _ => 0,
    }
}

/// The lowest: Kafka 4's brokers accept nothing older than these for the APIs kafkit uses.
fn kafkit_min(api: ApiKey) -> i16 {
    match api {
        ApiKey::Produce => 3,
        ApiKey::Fetch => 4,
        ApiKey::ListOffsets => 1,
        ApiKey::Metadata => 1,
        ApiKey::CreateTopics | ApiKey::DeleteTopics => 2,
        ApiKey::DescribeConfigs => 1,
        // v0 sends the tokens raw, outside Kafka's frames: every broker since 1.0 has v1.
        ApiKey::SaslHandshake => 1,
        ApiKey::OffsetCommit => 2,
        ApiKey::OffsetFetch | ApiKey::FindCoordinator => 1,
        ApiKey::DescribeLogDirs => 1,
        _ => 0,
    }
}

/// A connection to a broker.
#[derive(Debug)]
pub struct Connection {
    stream: Stream,
    node: i32,
    address: Address,
    client_id: StrBytes,
    request_timeout: Duration,
    next_correlation: i32,
    /// The broker's `(min, max)` versions, by API key.
    versions: Vec<Option<(i16, i16)>>,
    /// Requests sent and not answered yet: correlation id, API, version.
    in_flight: VecDeque<(i32, ApiKey, i16)>,
}

impl Connection {
    /// Connects to `address` (node `node`, negative for a bootstrap entry), runs the TLS
    /// handshake if `security.protocol` asks for TLS, asks which API versions it supports and
    /// logs in if it asks for SASL. A refused login is [`NetError::Authentication`]; a
    /// connection that closes before the login is done,
    /// [`NetError::AuthenticationTerminated`].
    pub fn open(address: &Address, node: i32, config: &ClientConfig) -> Result<Self, NetError> {
        let mut last = None;
        for socket in address.resolve() {
            match TcpStream::connect_timeout(&socket, config.connect_timeout.max(MIN_TIMEOUT)) {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    let terminated = |source| NetError::AuthenticationTerminated {
                        node,
                        address: address.to_string(),
                        source,
                    };
                    let stream = match &config.security.tls {
                        None => Stream::Plain(stream),
                        Some(tls) => tls
                            .connect(
                                &address.host,
                                stream,
                                config.connect_timeout.max(MIN_TIMEOUT),
                            )
                            .map_err(|e| match e {
                                HandshakeError::Failed(cause) => NetError::Authentication {
                                    node,
                                    address: String::new(),
                                    exception: "SslAuthenticationException",
                                    message: "SSL handshake failed".into(),
                                    cause: Some(cause),
                                },
                                HandshakeError::Terminated(source) => terminated(source),
                            })
                            .map_err(|e| located(e, node, address))?,
                    };
                    let mut conn = Connection {
                        stream,
                        node,
                        address: address.clone(),
                        client_id: StrBytes::from_string(config.client_id.clone()),
                        request_timeout: config.request_timeout,
                        next_correlation: 0,
                        versions: Vec::new(),
                        in_flight: VecDeque::new(),
                    };
                    let secured = conn.handshake().and_then(|()| match &config.security.sasl {
                        Some(credentials) => super::sasl::authenticate(&mut conn, credentials),
                        None => Ok(()),
                    });
                    return match secured {
                        Ok(()) => Ok(conn),
                        // A TLS alert on the first read: the broker refused the handshake
                        // after the client's part of it (TLS 1.3 asks for a client
                        // certificate then), which Kafka reports as the handshake's failure.
                        Err(NetError::Disconnected { source, .. })
                            if config.security.tls.is_some()
                                && source.kind() == io::ErrorKind::InvalidData =>
                        {
                            Err(located(
                                NetError::Authentication {
                                    node,
                                    address: String::new(),
                                    exception: "SslAuthenticationException",
                                    message: "SSL handshake failed".into(),
                                    cause: Some(source.to_string()),
                                },
                                node,
                                address,
                            ))
                        }
                        // Closed (or silent) before the login was done: Kafka's "terminated
                        // during authentication", retried.
                        Err(NetError::Disconnected { source, .. })
                            if config.security.protocol
                                != super::config::SecurityProtocol::Plaintext =>
                        {
                            Err(terminated(source))
                        }
                        Err(e) => Err(located(e, node, address)),
                    };
                }
                Err(e) => last = Some(e),
            }
        }
        Err(NetError::Disconnected {
            node,
            address: address.to_string(),
            source: last.unwrap_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "the host name did not resolve")
            }),
        })
    }

    /// The node id this connection goes to.
    pub fn node(&self) -> i32 {
        self.node
    }

    /// The address it goes to.
    pub fn address(&self) -> &Address {
        &self.address
    }

    /// `ApiVersions`: v3 first; a broker that does not know it answers
    /// `UNSUPPORTED_VERSION` with its own range, and kafkit asks again at v0 (as Kafka's
    /// `NetworkClient` does).
    fn handshake(&mut self) -> Result<(), NetError> {
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str("kafkit"))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        let mut response: ApiVersionsResponse = self.call_at(&request, 3)?;
        if response.error_code == 35 {
            response = self.call_at(&request, 0)?;
        }
        if let Some(e) = KafkaError::from_code(response.error_code, None) {
            return Err(e.into());
        }
        for api in &response.api_keys {
            let Ok(key) = usize::try_from(api.api_key) else {
                continue;
            };
            if key >= self.versions.len() {
                self.versions.resize(key + 1, None);
            }
            if let Some(slot) = self.versions.get_mut(key) {
                *slot = Some((api.min_version, api.max_version));
            }
        }
        Ok(())
    }

    /// The version of `api` to use: the highest both kafkit and the broker support.
    pub fn version(&self, api: ApiKey) -> Result<i16, NetError> {
        let (min, max) = (kafkit_min(api), kafkit_max(api));
        let broker = usize::try_from(api as i16)
            .ok()
            .and_then(|k| self.versions.get(k).copied().flatten());
        match broker {
            Some((lo, hi)) if hi.min(max) >= lo.max(min) => Ok(hi.min(max)),
            _ => Err(NetError::UnsupportedApi {
                api: api_constant(api),
                min,
                max,
                broker,
            }),
        }
    }

    /// Sends `request` at the negotiated version and waits for its response.
    pub fn call<R: Request>(&mut self, request: &R) -> Result<R::Response, NetError> {
        let version = self.version(api_key::<R>())?;
        self.call_at(request, version)
    }

    fn call_at<R: Request>(&mut self, request: &R, version: i16) -> Result<R::Response, NetError> {
        self.send_at(request, version)?;
        self.receive::<R>()
    }

    /// Sends `request` at the negotiated version without waiting: its response is the next
    /// [`Self::receive`] after those of the requests sent before it.
    pub fn send<R: Request>(&mut self, request: &R) -> Result<(), NetError> {
        let version = self.version(api_key::<R>())?;
        self.send_at(request, version)
    }

    /// Sends `request` at `version`; its response is awaited by [`Self::receive`].
    fn send_at<R: Request>(&mut self, request: &R, version: i16) -> Result<(), NetError> {
        self.write_request(request, version, true)
    }

    /// Sends a request that gets no response (a Produce with `acks=0`).
    pub fn send_oneway<R: Request>(&mut self, request: &R) -> Result<(), NetError> {
        let version = self.version(api_key::<R>())?;
        self.write_request(request, version, false)
    }

    fn write_request<R: Request>(
        &mut self,
        request: &R,
        version: i16,
        expect_response: bool,
    ) -> Result<(), NetError> {
        let api = api_key::<R>();
        let correlation = self.next_correlation;
        self.next_correlation = self.next_correlation.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(R::KEY)
            .with_request_api_version(version)
            .with_correlation_id(correlation)
            .with_client_id(Some(self.client_id.clone()));
        let encode_error = |e: &dyn std::fmt::Display| NetError::Encode {
            api: api_name(api),
            message: e.to_string(),
        };
        let mut buf = BytesMut::new();
        buf.put_i32(0);
        header
            .encode(&mut buf, R::header_version(version))
            .map_err(|e| encode_error(&e))?;
        request
            .encode(&mut buf, version)
            .map_err(|e| encode_error(&e))?;
        let size = i32::try_from(buf.len() - 4).map_err(|e| encode_error(&e))?;
        if let Some(head) = buf.get_mut(..4) {
            head.copy_from_slice(&size.to_be_bytes());
        }
        let _ = self
            .stream
            .set_write_timeout(Some(self.request_timeout.max(MIN_TIMEOUT)));
        self.stream
            .write_all(&buf)
            .and_then(|()| self.stream.flush())
            .map_err(|e| self.io_error(e))?;
        if expect_response {
            self.in_flight.push_back((correlation, api, version));
        }
        Ok(())
    }

    /// How many requests wait for their responses.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Reads the response to the oldest request in flight, which must be an `R`.
    pub fn receive<R: Request>(&mut self) -> Result<R::Response, NetError> {
        let Some((correlation, api, version)) = self.in_flight.pop_front() else {
            return Err(NetError::Protocol {
                api: api_name(api_key::<R>()),
                node: self.node,
                message: "no request is waiting for a response".into(),
            });
        };
        let mut frame = self.read_frame(api)?;
        let protocol = |message: String| NetError::Protocol {
            api: api_name(api),
            node: self.node,
            message,
        };
        let header = ResponseHeader::decode(&mut frame, R::Response::header_version(version))
            .map_err(|e| protocol(e.to_string()))?;
        if header.correlation_id != correlation {
            return Err(protocol(format!(
                "correlation id {} where {correlation} was expected",
                header.correlation_id
            )));
        }
        R::Response::decode(&mut frame, version).map_err(|e| protocol(e.to_string()))
    }

    fn read_frame(&mut self, api: ApiKey) -> Result<Bytes, NetError> {
        let deadline = Instant::now() + self.request_timeout;
        let mut size = [0u8; 4];
        self.read_until(&mut size, deadline, api)?;
        let size = usize::try_from(i32::from_be_bytes(size))
            .ok()
            .filter(|s| *s <= MAX_RESPONSE_BYTES)
            .ok_or_else(|| NetError::Protocol {
                api: api_name(api),
                node: self.node,
                message: format!(
                    "a response of {} bytes (at most {MAX_RESPONSE_BYTES} are read)",
                    i32::from_be_bytes(size)
                ),
            })?;
        let mut body = vec![0u8; size];
        self.read_until(&mut body, deadline, api)?;
        Ok(Bytes::from(body))
    }

    fn read_until(
        &mut self,
        buf: &mut [u8],
        deadline: Instant,
        api: ApiKey,
    ) -> Result<(), NetError> {
        let mut done = 0;
        while done < buf.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(self.timeout(api));
            }
            let _ = self.stream.set_read_timeout(Some(left.max(MIN_TIMEOUT)));
            let Some(rest) = buf.get_mut(done..) else {
                break;
            };
            match self.stream.read(rest) {
                Ok(0) => {
                    return Err(self.io_error(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the broker closed the connection",
                    )))
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(self.timeout(api))
                }
                Err(e) => return Err(self.io_error(e)),
            }
        }
        Ok(())
    }

    fn timeout(&self, api: ApiKey) -> NetError {
        NetError::Timeout {
            message: format!(
                "Disconnected from node {} due to timeout: no {} response within request.timeout.ms={} ms",
                self.node,
                api_name(api),
                self.request_timeout.as_millis()
            ),
            unreachable: None,
        }
    }

    fn io_error(&self, source: io::Error) -> NetError {
        NetError::Disconnected {
            node: self.node,
            address: self.address.to_string(),
            source,
        }
    }
}

/// A refused login with the node and address it was refused by.
fn located(e: NetError, node: i32, address: &Address) -> NetError {
    match e {
        NetError::Authentication {
            exception,
            message,
            cause,
            ..
        } => NetError::Authentication {
            node,
            address: super::cluster::java_address(address),
            exception,
            message,
            cause,
        },
        other => other,
    }
}

/// A socket timeout of zero means "none" to std: the shortest one kafkit sets.
const MIN_TIMEOUT: Duration = Duration::from_millis(1);

fn api_key<R: Request>() -> ApiKey {
    ApiKey::try_from(R::KEY).unwrap_or(ApiKey::ApiVersions)
}

/// The API's name, as Kafka's `ApiKeys` spells it in messages.
pub fn api_name(api: ApiKey) -> &'static str {
    match api {
        ApiKey::Produce => "Produce",
        ApiKey::Fetch => "Fetch",
        ApiKey::ListOffsets => "ListOffsets",
        ApiKey::Metadata => "Metadata",
        ApiKey::ApiVersions => "ApiVersions",
        ApiKey::CreateTopics => "CreateTopics",
        ApiKey::DeleteTopics => "DeleteTopics",
        ApiKey::InitProducerId => "InitProducerId",
        ApiKey::DescribeConfigs => "DescribeConfigs",
        ApiKey::IncrementalAlterConfigs => "IncrementalAlterConfigs",
        ApiKey::CreatePartitions => "CreatePartitions",
        ApiKey::SaslHandshake => "SaslHandshake",
        ApiKey::SaslAuthenticate => "SaslAuthenticate",
        ApiKey::FindCoordinator => "FindCoordinator",
        ApiKey::JoinGroup => "JoinGroup",
        ApiKey::SyncGroup => "SyncGroup",
        ApiKey::Heartbeat => "Heartbeat",
        ApiKey::LeaveGroup => "LeaveGroup",
        ApiKey::OffsetCommit => "OffsetCommit",
        ApiKey::OffsetFetch => "OffsetFetch",
        ApiKey::ListGroups => "ListGroups",
        ApiKey::DescribeGroups => "DescribeGroups",
        ApiKey::DeleteGroups => "DeleteGroups",
        ApiKey::DeleteRecords => "DeleteRecords",
        ApiKey::DescribeLogDirs => "DescribeLogDirs",
        _ => "a request",
    }
}

/// The API's constant in Kafka's `ApiKeys` enum (`CREATE_PARTITIONS`), as its
/// `UnsupportedVersionException`s name it: the message's name with `_` before each inner
/// capital.
pub fn api_constant(api: ApiKey) -> String {
    let mut out = String::new();
    for (i, c) in format!("{api:?}").chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// kafka-protocol's message types know their valid versions; kafkit's caps stay within them.
#[cfg(test)]
mod tests {
    use super::*;
    use kafka_protocol::messages::*;
    use kafka_protocol::protocol::Message;

    fn within<R: Message>(api: ApiKey) {
        assert!(R::VERSIONS.min <= kafkit_min(api), "{api:?}");
        assert!(R::VERSIONS.max >= kafkit_max(api), "{api:?}");
    }

    #[test]
    fn api_constants_are_kafkas() {
        assert_eq!(api_constant(ApiKey::CreatePartitions), "CREATE_PARTITIONS");
        assert_eq!(
            api_constant(ApiKey::IncrementalAlterConfigs),
            "INCREMENTAL_ALTER_CONFIGS"
        );
        assert_eq!(api_constant(ApiKey::Produce), "PRODUCE");
    }

    #[test]
    fn caps_are_within_the_schemas() {
        within::<ProduceRequest>(ApiKey::Produce);
        within::<FetchRequest>(ApiKey::Fetch);
        within::<ListOffsetsRequest>(ApiKey::ListOffsets);
        within::<MetadataRequest>(ApiKey::Metadata);
        within::<CreateTopicsRequest>(ApiKey::CreateTopics);
        within::<DeleteTopicsRequest>(ApiKey::DeleteTopics);
        within::<InitProducerIdRequest>(ApiKey::InitProducerId);
        within::<DescribeConfigsRequest>(ApiKey::DescribeConfigs);
        within::<IncrementalAlterConfigsRequest>(ApiKey::IncrementalAlterConfigs);
        within::<CreatePartitionsRequest>(ApiKey::CreatePartitions);
        within::<SaslHandshakeRequest>(ApiKey::SaslHandshake);
        within::<SaslAuthenticateRequest>(ApiKey::SaslAuthenticate);
        within::<FindCoordinatorRequest>(ApiKey::FindCoordinator);
        within::<JoinGroupRequest>(ApiKey::JoinGroup);
        within::<SyncGroupRequest>(ApiKey::SyncGroup);
        within::<HeartbeatRequest>(ApiKey::Heartbeat);
        within::<LeaveGroupRequest>(ApiKey::LeaveGroup);
        within::<OffsetCommitRequest>(ApiKey::OffsetCommit);
        within::<OffsetFetchRequest>(ApiKey::OffsetFetch);
        within::<ListGroupsRequest>(ApiKey::ListGroups);
        within::<DescribeGroupsRequest>(ApiKey::DescribeGroups);
        within::<DeleteGroupsRequest>(ApiKey::DeleteGroups);
        within::<DeleteRecordsRequest>(ApiKey::DeleteRecords);
        within::<DescribeLogDirsRequest>(ApiKey::DescribeLogDirs);
    }
}
