//! SASL for `security.protocol=SASL_PLAINTEXT` and `SASL_SSL`: PLAIN and SCRAM-SHA-256/512
//! (RFC 5802, RFC 7677, with Kafka's details), after `ApiVersions`, as Kafka's
//! `SaslClientAuthenticator` runs it: `SaslHandshake` v1 names the mechanism, then each token
//! goes in a `SaslAuthenticate` request.
//!
//! The credentials come from `sasl.mechanism` and `sasl.jaas.config` (Kafka's
//! `org.apache.kafka.common.security.plain.PlainLoginModule required username="..."
//! password="...";` or the `scram.ScramLoginModule` form). The password is kept in
//! [`Credentials`] only: its `Debug` hides it, and no message kafkit prints holds it (nor the
//! JAAS text it came in).

use std::fmt;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use bytes::Bytes;
use kafka_protocol::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
use kafka_protocol::protocol::StrBytes;
use ring::{digest, hmac, pbkdf2};

use super::connection::Connection;
use super::errors::KafkaError;
use super::NetError;

/// A SASL mechanism kafkit speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mechanism {
    /// `PLAIN` (RFC 4616): the password in the clear, so only over TLS in earnest.
    Plain,
    /// `SCRAM-SHA-256` (RFC 7677).
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
}

impl Mechanism {
    /// Kafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Plain => "PLAIN",
            Mechanism::ScramSha256 => "SCRAM-SHA-256",
            Mechanism::ScramSha512 => "SCRAM-SHA-512",
        }
    }

    fn parse(name: &str) -> Result<Self, NetError> {
        match name.trim() {
            "PLAIN" => Ok(Mechanism::Plain),
            "SCRAM-SHA-256" => Ok(Mechanism::ScramSha256),
            "SCRAM-SHA-512" => Ok(Mechanism::ScramSha512),
            other => Err(NetError::Security {
                name: "sasl.mechanism".into(),
                reason: format!(
                    "{other} is not supported: kafkit speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512"
                ),
            }),
        }
    }

    /// The login module Kafka's `sasl.jaas.config` names for it.
    fn login_module(self) -> &'static str {
        match self {
            Mechanism::Plain => "org.apache.kafka.common.security.plain.PlainLoginModule",
            _ => "org.apache.kafka.common.security.scram.ScramLoginModule",
        }
    }
}

/// Who logs in, and how.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// The user name.
    pub username: String,
    password: String,
}

impl fmt::Debug for Credentials {
    /// Kafka's `[hidden]` for the password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("mechanism", &self.mechanism)
            .field("username", &self.username)
            .field("password", &"[hidden]")
            .finish()
    }
}

/// The `sasl.*` properties as given (a later one wins).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SaslProperties {
    mechanism: Option<String>,
    jaas: Option<String>,
}

impl fmt::Debug for SaslProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslProperties")
            .field("mechanism", &self.mechanism)
            .field("jaas", &self.jaas.as_ref().map(|_| "[hidden]"))
            .finish()
    }
}

impl SaslProperties {
    /// Takes `name=value` if it is a `sasl.*` property kafkit reads; `false` otherwise.
    pub fn set(&mut self, name: &str, value: &str) -> bool {
        match name {
            "sasl.mechanism" => self.mechanism = Some(value.to_string()),
            "sasl.jaas.config" => self.jaas = Some(value.to_string()),
            _ => return false,
        }
        true
    }

    /// The credentials these properties give. Kafka's default mechanism is GSSAPI, which
    /// kafkit does not speak: `sasl.mechanism` must be set.
    pub fn build(&self) -> Result<Credentials, NetError> {
        let mechanism = Mechanism::parse(self.mechanism.as_deref().unwrap_or("GSSAPI"))?;
        let jaas = self.jaas.as_deref().ok_or_else(|| NetError::Security {
            name: "sasl.jaas.config".into(),
            reason: "Could not find a 'KafkaClient' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set".into(),
        })?;
        let (module, options) = parse_jaas(jaas).map_err(|reason| NetError::Security {
            name: "sasl.jaas.config".into(),
            reason,
        })?;
        if module != mechanism.login_module() {
            return Err(NetError::Security {
                name: "sasl.jaas.config".into(),
                reason: format!(
                    "{} needs the login module {}, not {module}",
                    mechanism.name(),
                    mechanism.login_module()
                ),
            });
        }
        let option = |key: &str| {
            options
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| NetError::Security {
                    name: "sasl.jaas.config".into(),
                    reason: format!(
                        "no '{key}' option in the {} entry",
                        mechanism.login_module()
                    ),
                })
        };
        Ok(Credentials {
            mechanism,
            username: option("username")?,
            password: option("password")?,
        })
    }
}

/// Kafka's JAAS entry (`JaasConfig`): `<login module> <flag> key=value ...;`, values quoted
/// with `"` or bare words, one module only. Messages name keys, never values.
fn parse_jaas(text: &str) -> Result<(String, Vec<(String, String)>), String> {
    let tokens = jaas_tokens(text)?;
    let mut entries = tokens.split(|t| *t == Token::Semicolon).collect::<Vec<_>>();
    let tail = entries.pop().unwrap_or_default();
    if !tail.is_empty() {
        return Err("JAAS config entry not terminated by semi-colon".into());
    }
    let [entry] = entries.as_slice() else {
        return Err(format!(
            "JAAS config property contains {} login modules, should be 1 module",
            entries.len()
        ));
    };
    let mut it = entry.iter();
    let Some(Token::Word(module)) = it.next() else {
        return Err("JAAS config property does not contain a login module".into());
    };
    match it.next() {
        Some(Token::Word(flag))
            if ["required", "requisite", "sufficient", "optional"]
                .contains(&flag.to_ascii_lowercase().as_str()) => {}
        // Kafka's message quotes the word; kafkit's does not, as it may be a misplaced secret.
        Some(Token::Word(_)) => {
            return Err(
                "Invalid login module control flag in JAAS config (required, requisite, sufficient or optional)"
                    .into(),
            )
        }
        _ => return Err("Login module control flag not specified in JAAS config".into()),
    }
    let mut options = Vec::new();
    while let Some(token) = it.next() {
        let Token::Word(key) = token else {
            return Err("Expected an option name in JAAS config".into());
        };
        if it.next() != Some(&Token::Equals) {
            return Err(format!(
                "Value not specified for key '{key}' in JAAS config"
            ));
        }
        match it.next() {
            Some(Token::Word(value) | Token::Quoted(value)) => {
                options.push((key.clone(), value.clone()))
            }
            _ => {
                return Err(format!(
                    "Value not specified for key '{key}' in JAAS config"
                ))
            }
        }
    }
    Ok((module.clone(), options))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Semicolon,
}

fn jaas_tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '=' => tokens.push(Token::Equals),
            ';' => tokens.push(Token::Semicolon),
            '"' => {
                let mut value = String::new();
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => {
                            if let Some(next) = chars.next() {
                                value.push(next);
                            }
                        }
                        Some(c) => value.push(c),
                        None => return Err("Unterminated quoted value in JAAS config".into()),
                    }
                }
                tokens.push(Token::Quoted(value));
            }
            c => {
                let mut word = c.to_string();
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || n == '=' || n == ';' || n == '"' {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    Ok(tokens)
}

/// Logs in on a connection whose `ApiVersions` is done: `SaslHandshake`, then the
/// mechanism's tokens in `SaslAuthenticate` requests. A broker's refusal is Kafka's
/// exception with the broker's message.
pub fn authenticate(conn: &mut Connection, credentials: &Credentials) -> Result<(), NetError> {
    let mechanism = credentials.mechanism.name();
    let response = conn.call(
        &SaslHandshakeRequest::default().with_mechanism(StrBytes::from_static_str(mechanism)),
    )?;
    let enabled = || {
        let names: Vec<&str> = response.mechanisms.iter().map(|m| m.as_str()).collect();
        format!("[{}]", names.join(", "))
    };
    match response.error_code {
        0 => {}
        33 => {
            return Err(refused(
                "UnsupportedSaslMechanismException",
                format!(
                    "Client SASL mechanism '{mechanism}' not enabled in the server, enabled mechanisms are {}",
                    enabled()
                ),
            ))
        }
        34 => {
            return Err(refused(
                "IllegalSaslStateException",
                format!(
                    "Unexpected handshake request with client mechanism {mechanism}, enabled mechanisms are {}",
                    enabled()
                ),
            ))
        }
        code => {
            return Err(refused(
                "IllegalSaslStateException",
                format!(
                    "Unknown error code {code}, client mechanism is {mechanism}, enabled mechanisms are {}",
                    enabled()
                ),
            ))
        }
    }
    match credentials.mechanism {
        Mechanism::Plain => {
            let mut token = vec![0u8];
            token.extend_from_slice(credentials.username.as_bytes());
            token.push(0);
            token.extend_from_slice(credentials.password.as_bytes());
            send_token(conn, token)?;
            Ok(())
        }
        Mechanism::ScramSha256 | Mechanism::ScramSha512 => {
            let mut scram = Scram::new(credentials, &nonce());
            let server_first = send_token(conn, scram.client_first().into_bytes())?;
            let client_final = scram.client_final(&server_first)?;
            let server_final = send_token(conn, client_final.into_bytes())?;
            scram.verify_server_final(&server_final)
        }
    }
}

/// One `SaslAuthenticate` round: the broker's answer token, or its refusal.
fn send_token(conn: &mut Connection, token: Vec<u8>) -> Result<Bytes, NetError> {
    let response =
        conn.call(&SaslAuthenticateRequest::default().with_auth_bytes(Bytes::from(token)))?;
    match response.error_code {
        0 => Ok(response.auth_bytes),
        code => {
            let error = KafkaError::from_code(code, response.error_message.as_deref());
            Err(refused(
                error
                    .as_ref()
                    .map_or("SaslAuthenticationException", KafkaError::exception),
                error.map_or_else(|| "SASL Authentication failed.".into(), |e| e.text()),
            ))
        }
    }
}

fn refused(exception: &'static str, message: String) -> NetError {
    NetError::Authentication {
        // Filled in by `Connection::open`, which knows them.
        node: 0,
        address: String::new(),
        exception,
        message,
        cause: None,
    }
}

/// A client nonce: 32 random bytes, base64 (printable, no `,`).
fn nonce() -> String {
    use rand::Rng;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    BASE64.encode(bytes)
}

/// The client side of one SCRAM exchange (RFC 5802 §3, with Kafka's `ScramSaslClient`'s
/// checks: the server nonce extends the client's, at least 4096 iterations).
struct Scram<'a> {
    credentials: &'a Credentials,
    client_nonce: String,
    client_first_bare: String,
    server_signature: Option<Vec<u8>>,
}

impl<'a> Scram<'a> {
    fn new(credentials: &'a Credentials, client_nonce: &str) -> Self {
        let name = credentials.username.replace('=', "=3D").replace(',', "=2C");
        Scram {
            credentials,
            client_nonce: client_nonce.to_string(),
            client_first_bare: format!("n={name},r={client_nonce}"),
            server_signature: None,
        }
    }

    fn algorithms(
        &self,
    ) -> (
        pbkdf2::Algorithm,
        hmac::Algorithm,
        &'static digest::Algorithm,
    ) {
        match self.credentials.mechanism {
            Mechanism::ScramSha512 => (
                pbkdf2::PBKDF2_HMAC_SHA512,
                hmac::HMAC_SHA512,
                &digest::SHA512,
            ),
            _ => (
                pbkdf2::PBKDF2_HMAC_SHA256,
                hmac::HMAC_SHA256,
                &digest::SHA256,
            ),
        }
    }

    fn client_first(&self) -> String {
        format!("n,,{}", self.client_first_bare)
    }

    /// The client's own refusal of what the server sent: Kafka's `ScramSaslClient` throws a
    /// `SaslException`, which `SaslClientAuthenticator` wraps in its message.
    fn failed(&self, what: String) -> NetError {
        refused("SaslAuthenticationException", format!(
            "An error: (java.util.concurrent.CompletionException: javax.security.sasl.SaslException: {what}) occurred when evaluating SASL token received from the Kafka Broker. Kafka Client will go to AUTHENTICATION_FAILED state."
        ))
    }

    fn client_final(&mut self, server_first: &[u8]) -> Result<String, NetError> {
        let text = std::str::from_utf8(server_first)
            .map_err(|_| self.failed("the server-first message is not UTF-8".into()))?;
        let field = |key: &str| {
            text.split(',')
                .find_map(|f| f.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
        };
        if let Some(error) = field("e") {
            return Err(self.failed(format!("the server answered {error}")));
        }
        let (Some(nonce), Some(salt), Some(iterations)) = (field("r"), field("s"), field("i"))
        else {
            return Err(self.failed("malformed server-first message".into()));
        };
        if !nonce.starts_with(&self.client_nonce) || nonce.len() <= self.client_nonce.len() {
            return Err(
                self.failed("Invalid server nonce: does not start with client nonce".into())
            );
        }
        let salt = BASE64
            .decode(salt)
            .map_err(|_| self.failed("the salt is not base64".into()))?;
        let iterations = iterations
            .parse::<u32>()
            .ok()
            .and_then(std::num::NonZeroU32::new)
            .ok_or_else(|| self.failed("the iteration count is not a number".into()))?;
        if iterations.get() < 4096 {
            return Err(self.failed(format!(
                "Requested iterations {iterations} is less than the minimum 4096 for {}",
                self.credentials.mechanism.name()
            )));
        }
        let (kdf, mac, hash) = self.algorithms();
        let mut salted = vec![0u8; hash.output_len()];
        pbkdf2::derive(
            kdf,
            iterations,
            &salt,
            self.credentials.password.as_bytes(),
            &mut salted,
        );
        let salted = hmac::Key::new(mac, &salted);
        let client_key = hmac::sign(&salted, b"Client Key");
        let stored_key = digest::digest(hash, client_key.as_ref());
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{text},{without_proof}", self.client_first_bare);
        let signature = hmac::sign(
            &hmac::Key::new(mac, stored_key.as_ref()),
            auth_message.as_bytes(),
        );
        let proof: Vec<u8> = client_key
            .as_ref()
            .iter()
            .zip(signature.as_ref())
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = hmac::sign(&salted, b"Server Key");
        self.server_signature = Some(
            hmac::sign(
                &hmac::Key::new(mac, server_key.as_ref()),
                auth_message.as_bytes(),
            )
            .as_ref()
            .to_vec(),
        );
        Ok(format!("{without_proof},p={}", BASE64.encode(proof)))
    }

    fn verify_server_final(&self, server_final: &[u8]) -> Result<(), NetError> {
        let text = String::from_utf8_lossy(server_final);
        if let Some(error) = text.strip_prefix("e=") {
            return Err(self.failed(format!(
                "Sasl authentication using {} failed with error: {error}",
                self.credentials.mechanism.name()
            )));
        }
        let verifier = text
            .split(',')
            .find_map(|f| f.strip_prefix("v="))
            .and_then(|v| BASE64.decode(v).ok());
        match (&self.server_signature, verifier) {
            (Some(expected), Some(got)) if *expected == got => Ok(()),
            _ => Err(self.failed("Invalid server signature in server final message".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(mechanism: &str, jaas: &str) -> SaslProperties {
        let mut p = SaslProperties::default();
        p.set("sasl.mechanism", mechanism);
        p.set("sasl.jaas.config", jaas);
        p
    }

    #[test]
    fn jaas_configs_are_read_as_kafka_reads_them() {
        let c = props(
            "SCRAM-SHA-512",
            r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="p;a=\"s s\"";"#,
        )
        .build()
        .unwrap();
        assert_eq!(c.mechanism, Mechanism::ScramSha512);
        assert_eq!(c.username, "alice");
        assert_eq!(c.password, "p;a=\"s s\"");
        let c = props(
            "PLAIN",
            "org.apache.kafka.common.security.plain.PlainLoginModule required\n  username=bob\n  password=pw;",
        )
        .build()
        .unwrap();
        assert_eq!((c.username.as_str(), c.password.as_str()), ("bob", "pw"));
        let debug = format!("{c:?} {:?}", props("PLAIN", "x password=pw;"));
        assert!(!debug.contains("pw"), "{debug}");
    }

    #[test]
    fn bad_jaas_configs_get_kafkas_messages_without_the_secret() {
        let scram = "org.apache.kafka.common.security.scram.ScramLoginModule";
        let cases = [
            (format!(r#"{scram} required username="u" password="SECRET""#), "JAAS config entry not terminated by semi-colon"),
            (format!(r#"{scram} username="u" password="SECRET";"#), "Invalid login module control flag in JAAS config (required, requisite, sufficient or optional)"),
            (format!(r#"{scram} required username="u" password;"#), "Value not specified for key 'password' in JAAS config"),
            (format!(r#"{scram} required password="SECRET"; {scram} required;"#), "JAAS config property contains 2 login modules, should be 1 module"),
            (format!(r#"{scram} required username="u";"#), "no 'password' option"),
            (r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="SECRET";"#.to_string(), "SCRAM-SHA-256 needs the login module"),
        ];
        for (jaas, expected) in cases {
            let e = props("SCRAM-SHA-256", &jaas)
                .build()
                .unwrap_err()
                .to_string();
            assert!(e.contains(expected), "{jaas}: {e}");
            assert!(!e.contains("SECRET"), "{e}");
        }
        let e = props("GSSAPI", "x required;")
            .build()
            .unwrap_err()
            .to_string();
        assert!(e.contains("GSSAPI is not supported"), "{e}");
        let e = SaslProperties::default().build().unwrap_err().to_string();
        assert!(e.contains("GSSAPI is not supported"), "{e}");
        let mut p = SaslProperties::default();
        p.set("sasl.mechanism", "PLAIN");
        assert!(p
            .build()
            .unwrap_err()
            .to_string()
            .contains("Could not find a 'KafkaClient' entry in the JAAS configuration"));
    }

    /// RFC 7677 §3's SCRAM-SHA-256 exchange, byte for byte.
    #[test]
    fn scram_sha_256_follows_rfc_7677() {
        let credentials = Credentials {
            mechanism: Mechanism::ScramSha256,
            username: "user".into(),
            password: "pencil".into(),
        };
        let mut scram = Scram::new(&credentials, "rOprNGfwEbeRWgbNEkqO");
        assert_eq!(scram.client_first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(
            scram.client_final(server_first).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        scram
            .verify_server_final(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        let forged = scram
            .verify_server_final(b"v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap_err();
        assert_eq!(
            forged.to_string(),
            "An error: (java.util.concurrent.CompletionException: javax.security.sasl.SaslException: Invalid server signature in server final message) occurred when evaluating SASL token received from the Kafka Broker. Kafka Client will go to AUTHENTICATION_FAILED state."
        );
    }

    /// SCRAM-SHA-512 has no RFC vector: RFC 7677's exchange with SHA-512, computed with
    /// Python's `hashlib.pbkdf2_hmac` and `hmac` (an independent implementation of the same
    /// formulas).
    #[test]
    fn scram_sha_512_matches_pythons_hashlib() {
        let credentials = Credentials {
            mechanism: Mechanism::ScramSha512,
            username: "user".into(),
            password: "pencil".into(),
        };
        let mut scram = Scram::new(&credentials, "rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(
            scram.client_final(server_first).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=gMGXRcevScNtxZ6/8lQYpGtnsNAc3mGcmNomv+xnoOMw+3R2xNJdMNnzMlTN8PPC6wdp6dybEmDYXYTxwnYPJQ=="
        );
        scram
            .verify_server_final(b"v=ZQnYEgWQMFmmsM8aQMF0nDDCy/AgCzkwk8CmMZYcMg0vSVlKDanekLtifDSeVGT4+5ZxXnJq199RVG2rR7N7Zw==")
            .unwrap();
    }

    #[test]
    fn scram_refuses_a_weak_or_foreign_server_first_message() {
        let credentials = Credentials {
            mechanism: Mechanism::ScramSha512,
            username: "a=b,c".into(),
            password: "pw".into(),
        };
        let mut scram = Scram::new(&credentials, "abc");
        assert_eq!(scram.client_first(), "n,,n=a=3Db=2Cc,r=abc");
        let weak = scram
            .client_final(b"r=abcdef,s=c2FsdA==,i=4095")
            .unwrap_err();
        assert!(
            weak.to_string()
                .contains("SaslException: Requested iterations 4095 is less than the minimum 4096 for SCRAM-SHA-512)"),
            "{weak}"
        );
        let foreign = scram.client_final(b"r=xyz,s=c2FsdA==,i=4096").unwrap_err();
        assert!(
            foreign
                .to_string()
                .contains("Invalid server nonce: does not start with client nonce"),
            "{foreign}"
        );
    }
}
