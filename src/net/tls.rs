//! TLS for `security.protocol=SSL` and `SASL_SSL`: rustls (ring provider, no OpenSSL) over the
//! connection's blocking `TcpStream`, configured from Kafka's `ssl.*` properties.
//!
//! Only PEM stores are read (Kafka's `ssl.truststore.type=PEM` / `ssl.keystore.type=PEM`):
//! a CA file (`ssl.truststore.location`) or inline CAs (`ssl.truststore.certificates`), a client
//! certificate chain and key in one file (`ssl.keystore.location`) or inline
//! (`ssl.keystore.certificate.chain` + `ssl.keystore.key`). Without a truststore the system's CA
//! certificates are trusted, as Kafka trusts the JVM's. `ssl.endpoint.identification.algorithm`
//! is `https` (the broker's certificate must name the host dialled) unless set empty, which
//! keeps the chain check and drops the name check, as Kafka does. JKS and PKCS12 stores and
//! encrypted keys are refused with a message that says what to do instead.
//!
//! Secrets (the key, `ssl.key.password`) never reach a message or `Debug` output.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::{CertificateError, ClientConnection, DigitallySignedStruct, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

use super::NetError;

/// The `ssl.*` properties as given (a later one wins), before they are checked.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TlsProperties {
    truststore_type: Option<String>,
    truststore_location: Option<String>,
    truststore_certificates: Option<String>,
    keystore_type: Option<String>,
    keystore_location: Option<String>,
    keystore_chain: Option<String>,
    keystore_key: Option<String>,
    key_password: Option<String>,
    /// `ssl.endpoint.identification.algorithm`: `None` for Kafka's default, `https`.
    endpoint_identification: Option<String>,
}

impl fmt::Debug for TlsProperties {
    /// Names which properties are set, never the key or its password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |v: &Option<String>| v.as_ref().map(|_| "[hidden]");
        f.debug_struct("TlsProperties")
            .field("truststore_type", &self.truststore_type)
            .field("truststore_location", &self.truststore_location)
            .field(
                "truststore_certificates",
                &hidden(&self.truststore_certificates),
            )
            .field("keystore_type", &self.keystore_type)
            .field("keystore_location", &self.keystore_location)
            .field("keystore_chain", &hidden(&self.keystore_chain))
            .field("keystore_key", &hidden(&self.keystore_key))
            .field("key_password", &hidden(&self.key_password))
            .field("endpoint_identification", &self.endpoint_identification)
            .finish()
    }
}

impl TlsProperties {
    /// Takes `name=value` if it is an `ssl.*` property kafkit reads; `false` otherwise.
    pub fn set(&mut self, name: &str, value: &str) -> bool {
        let slot = match name {
            "ssl.truststore.type" => &mut self.truststore_type,
            "ssl.truststore.location" => &mut self.truststore_location,
            "ssl.truststore.certificates" => &mut self.truststore_certificates,
            "ssl.keystore.type" => &mut self.keystore_type,
            "ssl.keystore.location" => &mut self.keystore_location,
            "ssl.keystore.certificate.chain" => &mut self.keystore_chain,
            "ssl.keystore.key" => &mut self.keystore_key,
            "ssl.key.password" => &mut self.key_password,
            "ssl.endpoint.identification.algorithm" => &mut self.endpoint_identification,
            _ => return false,
        };
        *slot = Some(value.to_string());
        true
    }

    /// The rustls configuration these properties describe, or why they cannot be used.
    pub fn build(&self) -> Result<Tls, NetError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = Arc::new(self.roots()?);
        let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
            .build()
            .map_err(|e| invalid("ssl.truststore.location", e.to_string()))?;
        let check_name = match self.endpoint_identification.as_deref().map(str::trim) {
            None => true,
            Some(a) if a.eq_ignore_ascii_case("https") => true,
            Some("") => false,
            Some(other) => {
                return Err(invalid(
                    "ssl.endpoint.identification.algorithm",
                    format!("'{other}' is not an endpoint identification algorithm (https, or empty for none)"),
                ))
            }
        };
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid("ssl.protocol", e.to_string()))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Verifier {
                inner: verifier,
                check_name,
            }));
        let config = match self.client_identity()? {
            Some((chain, key)) => builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| invalid("ssl.keystore.key", e.to_string()))?,
            None => builder.with_no_client_auth(),
        };
        Ok(Tls {
            config: Arc::new(config),
        })
    }

    /// The CAs to trust: the truststore's, else the system's.
    fn roots(&self) -> Result<RootCertStore, NetError> {
        pem_only("ssl.truststore.type", self.truststore_type.as_deref())?;
        let certs = match (&self.truststore_location, &self.truststore_certificates) {
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "ssl.truststore.certificates",
                    "give the trusted certificates in ssl.truststore.location or in ssl.truststore.certificates, not both".into(),
                ))
            }
            (Some(path), None) => {
                certificates(&read_store("ssl.truststore.location", path)?, "ssl.truststore.location")?
            }
            (None, Some(pem)) => certificates(pem.as_bytes(), "ssl.truststore.certificates")?,
            (None, None) => rustls_native_certs::load_native_certs().certs,
        };
        let mut roots = RootCertStore::empty();
        let (_, ignored) = roots.add_parsable_certificates(certs);
        if roots.is_empty() && (self.truststore_location.is_some() || ignored > 0) {
            return Err(invalid(
                "ssl.truststore.location",
                "no usable CA certificate in the truststore".into(),
            ));
        }
        Ok(roots)
    }

    /// The client certificate chain and key, if a keystore is given.
    #[allow(clippy::type_complexity)]
    fn client_identity(
        &self,
    ) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, NetError> {
        pem_only("ssl.keystore.type", self.keystore_type.as_deref())?;
        let (pem, chain_from, key_from) = match (
            &self.keystore_location,
            &self.keystore_chain,
            &self.keystore_key,
        ) {
            (None, None, None) => return Ok(None),
            (Some(path), None, None) => (
                read_store("ssl.keystore.location", path)?,
                "ssl.keystore.location",
                "ssl.keystore.location",
            ),
            (None, Some(chain), Some(key)) => {
                let mut both = key.clone().into_bytes();
                both.push(b'\n');
                both.extend_from_slice(chain.as_bytes());
                (both, "ssl.keystore.certificate.chain", "ssl.keystore.key")
            }
            (None, Some(_), None) | (None, None, Some(_)) => {
                return Err(invalid(
                    "ssl.keystore.key",
                    "ssl.keystore.certificate.chain and ssl.keystore.key go together".into(),
                ))
            }
            _ => {
                return Err(invalid(
                    "ssl.keystore.location",
                    "give the keystore in ssl.keystore.location or in ssl.keystore.certificate.chain and ssl.keystore.key, not both".into(),
                ))
            }
        };
        let chain = certificates(&pem, chain_from)?;
        if chain.is_empty() {
            return Err(invalid(chain_from, "no certificate in the keystore".into()));
        }
        let text = String::from_utf8_lossy(&pem);
        if text.contains("ENCRYPTED PRIVATE KEY") || text.contains("Proc-Type: 4,ENCRYPTED") {
            return Err(invalid(
                "ssl.key.password",
                "encrypted private keys are not supported: give the key unencrypted (openssl pkcs8 -topk8 -nocrypt -in key.pem -out plain.pem) in a file only you can read".into(),
            ));
        }
        let key = PrivateKeyDer::from_pem_slice(&pem)
            .map_err(|_| invalid(key_from, "no PEM private key in the keystore".into()))?;
        Ok(Some((chain, key)))
    }
}

/// The only store type kafkit reads is PEM (Kafka's default, JKS, and PKCS12 are refused).
fn pem_only(name: &str, value: Option<&str>) -> Result<(), NetError> {
    match value.map(str::trim) {
        Some(t) if !t.eq_ignore_ascii_case("PEM") => Err(invalid(
            name,
            format!("{t} stores are not supported: only PEM is (convert with openssl, and set {name}=PEM)"),
        )),
        _ => Ok(()),
    }
}

fn read_store(name: &str, path: &str) -> Result<Vec<u8>, NetError> {
    std::fs::read(PathBuf::from(path))
        .map_err(|e| invalid(name, format!("cannot read {path}: {e}")))
}

fn certificates(pem: &[u8], name: &str) -> Result<Vec<CertificateDer<'static>>, NetError> {
    CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(name, format!("not a PEM certificate list: {e}")))
}

/// Kafka's `InvalidConfigurationException`-style refusal of an `ssl.*` property; the message
/// never holds the property's value.
fn invalid(name: &str, reason: String) -> NetError {
    NetError::Security {
        name: name.to_string(),
        reason,
    }
}

/// A checked TLS client configuration, shared by every connection of a client.
#[derive(Clone)]
pub struct Tls {
    config: Arc<rustls::ClientConfig>,
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tls { .. }")
    }
}

impl PartialEq for Tls {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.config, &other.config)
    }
}

impl Eq for Tls {}

impl Tls {
    /// Runs the TLS handshake with `host` over `tcp`, within `timeout`.
    pub fn connect(
        &self,
        host: &str,
        tcp: TcpStream,
        timeout: Duration,
    ) -> Result<Stream, HandshakeError> {
        let name = ServerName::try_from(host.to_string())
            .map_err(|e| HandshakeError::Failed(format!("{host} is not a server name: {e}")))?;
        let mut conn = ClientConnection::new(self.config.clone(), name)
            .map_err(|e| HandshakeError::Failed(e.to_string()))?;
        let mut tcp = tcp;
        let deadline = Instant::now() + timeout;
        while conn.is_handshaking() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(HandshakeError::Terminated(io::ErrorKind::TimedOut.into()));
            }
            let _ = tcp.set_read_timeout(Some(left));
            let _ = tcp.set_write_timeout(Some(left));
            match conn.complete_io(&mut tcp) {
                Ok((0, 0)) if conn.is_handshaking() && !conn.wants_write() => {
                    return Err(HandshakeError::Terminated(
                        io::ErrorKind::UnexpectedEof.into(),
                    ))
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    return Err(HandshakeError::Failed(
                        e.get_ref()
                            .map_or_else(|| e.to_string(), ToString::to_string),
                    ))
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(HandshakeError::Terminated(e)),
            }
        }
        Ok(Stream::Tls(Box::new(rustls::StreamOwned::new(conn, tcp))))
    }
}

/// Why a TLS handshake did not complete.
#[derive(Debug)]
pub enum HandshakeError {
    /// The peer's TLS was refused (a certificate not trusted or not for the host, no common
    /// protocol): Kafka's `SslAuthenticationException: SSL handshake failed`. The cause.
    Failed(String),
    /// The connection closed or stalled before the handshake completed (a plaintext port).
    Terminated(io::Error),
}

/// The chain is checked against the trusted CAs; the host name too unless
/// `ssl.endpoint.identification.algorithm` is empty.
#[derive(Debug)]
struct Verifier {
    inner: Arc<WebPkiServerVerifier>,
    check_name: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.check_name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// A connection's byte stream: plain TCP, or TLS over it.
#[derive(Debug)]
pub enum Stream {
    /// `PLAINTEXT`, `SASL_PLAINTEXT`.
    Plain(TcpStream),
    /// `SSL`, `SASL_SSL`.
    Tls(Box<rustls::StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => &s.sock,
        }
    }

    /// The socket's read timeout (`None`: wait forever).
    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.tcp().set_read_timeout(timeout)
    }

    /// The socket's write timeout.
    pub fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.tcp().set_write_timeout(timeout)
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pem_stores_are_read_and_secrets_stay_hidden() {
        let mut p = TlsProperties::default();
        assert!(p.set("ssl.truststore.type", "JKS"));
        assert!(p.set("ssl.key.password", "hunter2"));
        assert!(p.set(
            "ssl.keystore.key",
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n"
        ));
        assert!(!p.set("ssl.protocol", "TLSv1.3"));
        let debug = format!("{p:?}");
        assert!(
            !debug.contains("hunter2") && !debug.contains("c2VjcmV0"),
            "{debug}"
        );
        let e = p.build().unwrap_err().to_string();
        assert_eq!(
            e,
            "Invalid value for configuration ssl.truststore.type: JKS stores are not supported: only PEM is (convert with openssl, and set ssl.truststore.type=PEM)"
        );
        let mut p = TlsProperties::default();
        p.set("ssl.endpoint.identification.algorithm", "ldap");
        assert!(p.build().unwrap_err().to_string().contains("'ldap'"));
        let mut p = TlsProperties::default();
        p.set("ssl.keystore.certificate.chain", "x");
        assert!(p.build().unwrap_err().to_string().contains("go together"));
    }

    #[test]
    fn encrypted_keys_are_refused_without_echoing_them() {
        let mut p = TlsProperties::default();
        p.set(
            "ssl.keystore.key",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nU0VDUkVU\n-----END ENCRYPTED PRIVATE KEY-----\n",
        );
        // A self-signed certificate (only its PEM shape matters before the key is read).
        p.set("ssl.keystore.certificate.chain", CERT);
        let e = p.build().unwrap_err().to_string();
        assert!(
            e.contains("encrypted private keys are not supported"),
            "{e}"
        );
        assert!(!e.contains("U0VDUkVU"), "{e}");
    }

    const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBdTCCARugAwIBAgIUbW6F9Z0Cw7k5r0nKJ9yM3c9VQm0wCgYIKoZIzj0EAwIw
EDEOMAwGA1UEAwwFa2Fma2EwHhcNMjYwMTAxMDAwMDAwWhcNMzYwMTAxMDAwMDAw
WjAQMQ4wDAYDVQQDDAVrYWZrYTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABG0x
-----END CERTIFICATE-----
";
}
