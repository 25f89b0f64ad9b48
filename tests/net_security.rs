//! `--bootstrap-server` with TLS and SASL (`security.protocol` SSL, SASL_PLAINTEXT, SASL_SSL).
//!
//! Tansu 0.6 has no TLS listener of its own (its `--cert` and `--key` are in one exclusive
//! argument group, and the acceptor it builds is never used), so the TLS tests put OpenSSL in
//! front of it: `socat OPENSSL-LISTEN` terminates TLS with a certificate the test makes with
//! the `openssl` CLI and forwards to Tansu, which advertises the TLS port. kafkit's rustls
//! client thus meets an independent TLS implementation, and kcat (librdkafka with OpenSSL)
//! reads back over the same listener what kafkit produced.
//!
//! Tansu's `--authentication` offers SCRAM-SHA-256 and SCRAM-SHA-512 only (no PLAIN: it closes
//! the connection at the handshake), and its in-memory storage keeps no SCRAM credentials
//! (`tansu user create` is itself refused by an authenticating broker), so every login is
//! refused: the tests run the whole SCRAM exchange up to the server's `e=unknown-user` and
//! check Kafka's messages; a successful SCRAM login is covered by RFC 7677's vector
//! (`net::sasl` unit tests), not by a broker.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::broker::{self, free_port, Broker};
use crate::common::{kafkit_stdin, skip, tempdir, Run};

/// A CA, a server certificate it signed for `localhost` only (no IP address, so that dialling
/// 127.0.0.1 fails Kafka's `https` endpoint identification), a client certificate it signed,
/// and a second CA that signed nothing.
struct Certs {
    dir: tempfile::TempDir,
}

impl Certs {
    fn path(&self, name: &str) -> String {
        self.dir
            .path()
            .join(name)
            .to_str()
            .expect("path")
            .to_string()
    }

    #[track_caller]
    fn make() -> Option<Certs> {
        if !tool_runs("openssl", "version") {
            skip("the openssl CLI is not installed");
            return None;
        }
        let dir = tempdir();
        let d = dir.path();
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(d)
                .output()
                .expect("run openssl");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        std::fs::write(d.join("server.ext"), "subjectAltName=DNS:localhost\n").expect("ext");
        // v3 certificates (rustls refuses v1, which `x509 -req` makes without extensions).
        std::fs::write(d.join("client.ext"), "extendedKeyUsage=clientAuth\n").expect("ext");
        for ca in ["ca", "other-ca"] {
            openssl(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                &format!("{ca}.key"),
                "-out",
                &format!("{ca}.pem"),
                "-days",
                "2",
                "-subj",
                &format!("/CN={ca}"),
            ]);
        }
        for (name, ext) in [("server", "server.ext"), ("client", "client.ext")] {
            openssl(&[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                &format!("{name}.key"),
                "-out",
                &format!("{name}.csr"),
                "-subj",
                &format!("/CN={name}"),
            ]);
            let mut sign = vec![
                "x509",
                "-req",
                "-in",
                &*format!("{name}.csr"),
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-out",
            ]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
            sign.push(format!("{name}.pem"));
            sign.extend(["-extfile".into(), ext.into()]);
            openssl(&sign.iter().map(String::as_str).collect::<Vec<_>>());
        }
        // The client's keystore as one PEM file (key, then chain), as Kafka reads it.
        let key = std::fs::read_to_string(d.join("client.key")).expect("key");
        let cert = std::fs::read_to_string(d.join("client.pem")).expect("cert");
        std::fs::write(d.join("client-keystore.pem"), format!("{key}{cert}")).expect("keystore");
        // The same key encrypted, which kafkit refuses.
        openssl(&[
            "pkcs8",
            "-topk8",
            "-in",
            "client.key",
            "-out",
            "client-encrypted.key",
            "-passout",
            "pass:Key-Pa55",
        ]);
        Some(Certs { dir })
    }
}

fn tool_runs(name: &str, arg: &str) -> bool {
    Command::new(name)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// OpenSSL's TLS listener (socat) on its own port, forwarding to a broker; killed on drop.
struct TlsProxy {
    child: Child,
    port: u16,
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TlsProxy {
    /// Listens on `port` with the server certificate; `client_ca` set asks every client for a
    /// certificate that CA signed.
    #[track_caller]
    fn start(certs: &Certs, port: u16, backend: u16, client_ca: bool) -> Option<TlsProxy> {
        if !tool_runs("socat", "-V") {
            skip("socat is not installed (apt-get install socat)");
            return None;
        }
        let verify = if client_ca {
            format!("verify=1,cafile={}", certs.path("ca.pem"))
        } else {
            "verify=0".to_string()
        };
        let child = Command::new("socat")
            .arg(format!(
                "OPENSSL-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork,cert={},key={},{verify}",
                certs.path("server.pem"),
                certs.path("server.key")
            ))
            .arg(format!("TCP:127.0.0.1:{backend}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start socat");
        let proxy = TlsProxy { child, port };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "socat did not listen"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Some(proxy)
    }
}

/// A broker behind a TLS listener: Tansu advertises the listener's port.
#[track_caller]
fn secured_broker(certs: &Certs, client_ca: bool, extra: &[&str]) -> Option<(Broker, TlsProxy)> {
    let port = free_port();
    let broker = broker::start_with(Some(port), extra)?;
    let proxy = TlsProxy::start(certs, port, broker.port(), client_ca)?;
    Some((broker, proxy))
}

/// Writes `lines` as a properties file in `dir`, returning its path.
fn properties(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write properties");
    path
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    kafkit_stdin(&tempdir().path().join("unused"), args, stdin)
}

#[test]
fn topics_produce_and_consume_run_over_tls_and_kcat_reads_it_back() {
    let Some(certs) = Certs::make() else { return };
    let Some((_broker, proxy)) = secured_broker(&certs, false, &[]) else {
        return;
    };
    let dir = tempdir();
    let ca = certs.path("ca.pem");
    let inline_ca = std::fs::read_to_string(&ca)
        .expect("ca")
        .trim_end()
        .replace('\n', "\\n\\\n");
    // The CA as a file, and inline (a properties value continued over lines).
    let by_file = properties(
        dir.path(),
        "ssl.properties",
        &[
            "security.protocol=SSL".into(),
            "ssl.truststore.type=PEM".into(),
            format!("ssl.truststore.location={ca}"),
        ],
    );
    let inline = properties(
        dir.path(),
        "inline.properties",
        &[
            "security.protocol=SSL".into(),
            format!("ssl.truststore.certificates={inline_ca}"),
        ],
    );
    // The certificate names localhost: the broker is dialled by that name.
    let bootstrap = format!("localhost:{}", proxy.port);
    let by_file = by_file.to_str().expect("path");
    let created = run(
        &[
            "topics",
            "--create",
            "--topic",
            "tls-t",
            "--partitions",
            "1",
            "--bootstrap-server",
            &bootstrap,
            "--command-config",
            by_file,
        ],
        b"",
    );
    assert_eq!(created.ok(), "Created topic tls-t.\n");
    let listed = run(
        &[
            "topics",
            "--list",
            "--bootstrap-server",
            &bootstrap,
            "--command-config",
            inline.to_str().expect("path"),
        ],
        b"",
    );
    assert!(
        listed.ok().lines().any(|l| l == "tls-t"),
        "{}",
        listed.stdout
    );
    run(
        &[
            "produce",
            "--topic",
            "tls-t",
            "--property",
            "parse.key=true",
            "--bootstrap-server",
            &bootstrap,
            "--producer.config",
            by_file,
        ],
        b"k1\tv1\nk2\tv2\n",
    )
    .ok();
    let consumed = run(
        &[
            "consume",
            "--topic",
            "tls-t",
            "--from-beginning",
            "--max-messages",
            "2",
            "--property",
            "print.key=true",
            "--bootstrap-server",
            &bootstrap,
            "--consumer.config",
            by_file,
        ],
        b"",
    );
    assert_eq!(consumed.ok(), "k1\tv1\nk2\tv2\n");
    let offsets = run(
        &[
            "get-offsets",
            "--topic",
            "tls-t",
            "--bootstrap-server",
            &bootstrap,
            "--command-config",
            by_file,
        ],
        b"",
    );
    // Tansu's known difference: its latest offset is the last batch's base offset + 1 (one
    // batch of two records here), where Kafka's is 2.
    assert_eq!(offsets.ok(), "tls-t:0:1\n");

    // kcat (librdkafka over OpenSSL) reads over the same listener what kafkit produced.
    let Some(mut kcat) = broker::kcat() else {
        return;
    };
    let out = kcat
        .args([
            "-C",
            "-b",
            &bootstrap,
            "-t",
            "tls-t",
            "-e",
            "-o",
            "beginning",
            "-f",
            "%k=%s\n",
        ])
        .args([
            "-X",
            "security.protocol=ssl",
            "-X",
            &format!("ssl.ca.location={ca}"),
        ])
        .output()
        .expect("kcat");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "k1=v1\nk2=v2\n");
}

#[test]
fn client_certificates_are_sent_from_a_pem_keystore() {
    let Some(certs) = Certs::make() else { return };
    let Some((_broker, proxy)) = secured_broker(&certs, true, &[]) else {
        return;
    };
    let dir = tempdir();
    let bootstrap = format!("localhost:{}", proxy.port);
    let base = vec![
        "security.protocol=SSL".to_string(),
        format!("ssl.truststore.location={}", certs.path("ca.pem")),
        "default.api.timeout.ms=1500".into(),
        "socket.connection.setup.timeout.ms=1000".into(),
    ];
    let key = std::fs::read_to_string(certs.path("client.key")).expect("key");
    let chain = std::fs::read_to_string(certs.path("client.pem")).expect("chain");
    let inline = |pem: &str| pem.trim_end().replace('\n', "\\n\\\n");
    let cases = [
        (
            "file",
            vec![
                format!(
                    "ssl.keystore.location={}",
                    certs.path("client-keystore.pem")
                ),
                "ssl.keystore.type=PEM".into(),
            ],
        ),
        (
            "inline",
            vec![
                format!("ssl.keystore.key={}", inline(&key)),
                format!("ssl.keystore.certificate.chain={}", inline(&chain)),
            ],
        ),
    ];
    for (name, lines) in cases {
        let mut all = base.clone();
        all.extend(lines);
        let config = properties(dir.path(), &format!("{name}.properties"), &all);
        let created = run(
            &[
                "topics",
                "--create",
                "--if-not-exists",
                "--topic",
                "mtls-t",
                "--bootstrap-server",
                &bootstrap,
                "--command-config",
                config.to_str().expect("path"),
            ],
            b"",
        );
        assert_eq!(
            created.code, 0,
            "{name}: {}{}",
            created.stdout, created.stderr
        );
    }
    // No client certificate: OpenSSL's alert after the client's part of the TLS 1.3
    // handshake is Kafka's handshake failure.
    let none = properties(dir.path(), "none.properties", &base);
    let refused = run(
        &[
            "topics",
            "--list",
            "--bootstrap-server",
            &bootstrap,
            "--command-config",
            none.to_str().expect("path"),
        ],
        b"",
    );
    assert_eq!(refused.code, 1, "{}{}", refused.stdout, refused.stderr);
    assert_eq!(
        refused.stdout,
        "Error while executing topic command : SSL handshake failed\n"
    );
    assert!(
        refused.stderr.contains("SslAuthenticationException: SSL handshake failed\nCaused by: received fatal alert: CertificateRequired"),
        "{}",
        refused.stderr
    );
}

#[test]
fn tls_faults_are_kafkas_errors() {
    let Some(certs) = Certs::make() else { return };
    let Some((broker, proxy)) = secured_broker(&certs, false, &[]) else {
        return;
    };
    let dir = tempdir();
    let fast = [
        "default.api.timeout.ms=1000".to_string(),
        "socket.connection.setup.timeout.ms=500".into(),
    ];
    let with = |name: &str, lines: &[String]| {
        let mut all = fast.to_vec();
        all.push("security.protocol=SSL".into());
        all.extend(lines.iter().cloned());
        properties(dir.path(), name, &all)
    };
    let topics_list = |bootstrap: &str, config: &Path| {
        run(
            &[
                "topics",
                "--list",
                "--bootstrap-server",
                bootstrap,
                "--command-config",
                config.to_str().expect("path"),
            ],
            b"",
        )
    };
    let tls_port = proxy.port;
    let trusted = with(
        "trusted.properties",
        &[format!("ssl.truststore.location={}", certs.path("ca.pem"))],
    );

    // A CA that did not sign the broker's certificate: Kafka's SslAuthenticationException.
    let wrong = with(
        "wrong.properties",
        &[format!(
            "ssl.truststore.location={}",
            certs.path("other-ca.pem")
        )],
    );
    let run1 = topics_list(&format!("localhost:{tls_port}"), &wrong);
    assert_eq!(run1.code, 1);
    assert_eq!(
        run1.stdout,
        "Error while executing topic command : SSL handshake failed\n"
    );
    assert!(run1.stderr.contains(&format!(
        "ERROR Connection to node -1 (localhost/127.0.0.1:{tls_port}) failed authentication due to: SSL handshake failed (org.apache.kafka.clients.NetworkClient)"
    )), "{}", run1.stderr);
    assert!(run1.stderr.contains("org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed\nCaused by: invalid peer certificate: UnknownIssuer"), "{}", run1.stderr);

    // The certificate names localhost, not 127.0.0.1: refused under Kafka's default `https`
    // endpoint identification, accepted with it disabled (the chain is still checked).
    let by_ip = format!("127.0.0.1:{tls_port}");
    let run2 = topics_list(&by_ip, &trusted);
    assert_eq!(
        run2.stdout,
        "Error while executing topic command : SSL handshake failed\n"
    );
    assert!(
        run2.stderr
            .contains("Caused by: invalid peer certificate: certificate not valid for name"),
        "{}",
        run2.stderr
    );
    let no_names = with(
        "no-names.properties",
        &[
            format!("ssl.truststore.location={}", certs.path("ca.pem")),
            "ssl.endpoint.identification.algorithm=".into(),
        ],
    );
    assert_eq!(topics_list(&by_ip, &no_names).code, 0);
    let no_names_wrong_ca = with(
        "no-names-wrong.properties",
        &[
            format!("ssl.truststore.location={}", certs.path("other-ca.pem")),
            "ssl.endpoint.identification.algorithm=".into(),
        ],
    );
    assert_eq!(
        topics_list(&by_ip, &no_names_wrong_ca).stdout,
        "Error while executing topic command : SSL handshake failed\n"
    );

    // TLS to the broker's plaintext port: the handshake gets no answer, Kafka's client warns
    // that the connection ended during authentication and times out.
    let plain_port = broker.bootstrap();
    let run3 = topics_list(&plain_port, &trusted);
    assert_eq!(run3.code, 1);
    assert_eq!(run3.stdout, "Error while executing topic command : Timed out waiting for a node assignment. Call: listTopics\n");
    assert!(run3.stderr.contains(&format!(
        "WARN Connection to node -1 (127.0.0.1/{plain_port}) terminated during authentication. This may happen due to any of the following reasons: (1) Firewall blocking Kafka TLS traffic (eg it may only allow HTTPS traffic), (2) Transient network issue. (org.apache.kafka.clients.NetworkClient)"
    )), "{}", run3.stderr);

    // Stores kafkit cannot read: refused before any connection, with what to do instead.
    let jks = with(
        "jks.properties",
        &[
            "ssl.truststore.type=JKS".into(),
            "ssl.truststore.location=/x.jks".into(),
        ],
    );
    let run4 = topics_list(&by_ip, &jks);
    assert_eq!(run4.code, 1);
    assert!(run4.stderr.contains("Invalid value for configuration ssl.truststore.type: JKS stores are not supported: only PEM is"), "{}", run4.stderr);
    let encrypted = with(
        "encrypted.properties",
        &[
            format!("ssl.truststore.location={}", certs.path("ca.pem")),
            format!(
                "ssl.keystore.key={}",
                std::fs::read_to_string(certs.path("client-encrypted.key"))
                    .expect("key")
                    .trim_end()
                    .replace('\n', "\\n\\\n")
            ),
            format!(
                "ssl.keystore.certificate.chain={}",
                std::fs::read_to_string(certs.path("client.pem"))
                    .expect("pem")
                    .trim_end()
                    .replace('\n', "\\n\\\n")
            ),
            "ssl.key.password=Key-Pa55".into(),
        ],
    );
    let run5 = topics_list(&by_ip, &encrypted);
    assert_eq!(run5.code, 1);
    assert!(run5.stderr.contains("Invalid value for configuration ssl.key.password: encrypted private keys are not supported"), "{}", run5.stderr);
    assert!(!run5.stderr.contains("Key-Pa55") && !run5.stdout.contains("Key-Pa55"));
}

/// The SCRAM login properties for `mechanism` with `password`.
fn scram(mechanism: &str, password: &str, protocol: &str) -> Vec<String> {
    vec![
        format!("security.protocol={protocol}"),
        format!("sasl.mechanism={mechanism}"),
        format!(
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"alice\" password=\"{password}\";"
        ),
        "default.api.timeout.ms=1000".into(),
        "socket.connection.setup.timeout.ms=500".into(),
    ]
}

#[test]
fn refused_sasl_logins_are_kafkas_errors_over_plaintext_and_tls() {
    let Some(certs) = Certs::make() else { return };
    let Some((broker, proxy)) = secured_broker(&certs, false, &["--authentication"]) else {
        return;
    };
    let dir = tempdir();
    let ca = format!("ssl.truststore.location={}", certs.path("ca.pem"));
    for (protocol, bootstrap) in [
        ("SASL_PLAINTEXT", broker.bootstrap()),
        ("SASL_SSL", format!("localhost:{}", proxy.port)),
    ] {
        for mechanism in ["SCRAM-SHA-256", "SCRAM-SHA-512"] {
            let mut lines = scram(mechanism, "Wr0ng-Pa55word", protocol);
            lines.push(ca.clone());
            let config = properties(dir.path(), "scram.properties", &lines);
            let out = run(
                &[
                    "topics",
                    "--list",
                    "--bootstrap-server",
                    &bootstrap,
                    "--command-config",
                    config.to_str().expect("path"),
                ],
                b"",
            );
            // The whole exchange ran: Tansu's server-final message is RFC 5802's
            // `e=unknown-user`, which Kafka's ScramSaslClient turns into this message.
            let message = format!(
                "An error: (java.util.concurrent.CompletionException: javax.security.sasl.SaslException: Sasl authentication using {mechanism} failed with error: unknown-user) occurred when evaluating SASL token received from the Kafka Broker. Kafka Client will go to AUTHENTICATION_FAILED state."
            );
            assert_eq!(out.code, 1, "{protocol} {mechanism}");
            assert_eq!(
                out.stdout,
                format!("Error while executing topic command : {message}\n")
            );
            assert!(
                out.stderr.contains(&format!(
                    "org.apache.kafka.common.errors.SaslAuthenticationException: {message}"
                )),
                "{}",
                out.stderr
            );
            let get = run(
                &[
                    "get-offsets",
                    "--bootstrap-server",
                    &bootstrap,
                    "--command-config",
                    config.to_str().expect("path"),
                ],
                b"",
            );
            assert_eq!(get.code, 1);
            assert!(
                get.stderr.contains(&format!("Error occurred: {message}")),
                "{}",
                get.stderr
            );
        }
    }
    // PLAIN, which Tansu lacks: it closes the connection at the handshake (Kafka's brokers
    // answer UNSUPPORTED_SASL_MECHANISM), so the client warns and times out.
    let plain = properties(dir.path(), "plain.properties", &[
        "security.protocol=SASL_PLAINTEXT".into(),
        "sasl.mechanism=PLAIN".into(),
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\"Pl41n-Secret\";".into(),
        "default.api.timeout.ms=1000".into(),
    ]);
    let out = run(
        &[
            "topics",
            "--list",
            "--bootstrap-server",
            &broker.bootstrap(),
            "--command-config",
            plain.to_str().expect("path"),
        ],
        b"",
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("terminated during authentication"),
        "{}",
        out.stderr
    );

    // librdkafka (kcat) is refused the same way with the same credentials: the refusal is
    // the broker's (it knows no SCRAM user), not kafkit's exchange going wrong.
    let Some(mut kcat) = broker::kcat() else {
        return;
    };
    let out = kcat
        .args(["-L", "-m", "2", "-b", &broker.bootstrap()])
        .args([
            "-X",
            "security.protocol=sasl_plaintext",
            "-X",
            "sasl.mechanisms=SCRAM-SHA-256",
        ])
        .args([
            "-X",
            "sasl.username=alice",
            "-X",
            "sasl.password=Wr0ng-Pa55word",
        ])
        .output()
        .expect("kcat");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("SASL SCRAM authentication failed: broker responded with unknown-user"),
        "{stderr}"
    );
}

/// Every run that meets a secret, with every logging knob a user might turn up, prints none
/// of it: the wrong password, the PLAIN password, the JAAS text of a malformed entry, the key
/// password. kafkit has no verbose mode of its own; RUST_LOG and RUST_BACKTRACE are set in
/// case a dependency reads them.
#[test]
fn secrets_are_never_printed() {
    let Some(certs) = Certs::make() else { return };
    let Some((broker, proxy)) = secured_broker(&certs, false, &["--authentication"]) else {
        return;
    };
    let dir = tempdir();
    let secret = "S3cr3t-Never-Printed";
    let tls = format!("localhost:{}", proxy.port);
    let ca = format!("ssl.truststore.location={}", certs.path("ca.pem"));
    let mut configs: Vec<(String, Vec<String>)> = vec![
        (broker.bootstrap(), scram("SCRAM-SHA-256", secret, "SASL_PLAINTEXT")),
        (tls.clone(), {
            let mut l = scram("SCRAM-SHA-512", secret, "SASL_SSL");
            l.push(ca.clone());
            l
        }),
        (broker.bootstrap(), vec![
            "security.protocol=SASL_PLAINTEXT".into(),
            "sasl.mechanism=PLAIN".into(),
            format!("sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"{secret}\";"),
            "default.api.timeout.ms=500".into(),
        ]),
        // Malformed JAAS entries: the message names the key, never the text.
        (broker.bootstrap(), vec![
            "security.protocol=SASL_PLAINTEXT".into(),
            "sasl.mechanism=SCRAM-SHA-256".into(),
            format!("sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"{secret}\""),
        ]),
        (broker.bootstrap(), vec![
            "security.protocol=SASL_PLAINTEXT".into(),
            "sasl.mechanism=SCRAM-SHA-256".into(),
            format!("sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule {secret} password=\"{secret}\";"),
        ]),
        (tls.clone(), vec![
            "security.protocol=SSL".into(),
            ca.clone(),
            format!("ssl.keystore.location={}", certs.path("client-encrypted.key")),
            format!("ssl.key.password={secret}"),
        ]),
    ];
    configs.push((tls, {
        let mut l = scram("SCRAM-SHA-256", secret, "SASL_SSL");
        l.push(ca);
        l
    }));
    for (i, (bootstrap, lines)) in configs.iter().enumerate() {
        let config = properties(dir.path(), &format!("{i}.properties"), lines);
        let config = config.to_str().expect("path");
        for args in [
            vec!["topics", "--list"],
            vec!["--output", "json", "topics", "--describe"],
            vec!["get-offsets"],
            vec![
                "consume",
                "--topic",
                "t",
                "--partition",
                "0",
                "--max-messages",
                "1",
            ],
            vec!["produce", "--topic", "t"],
        ] {
            let mut all = args.clone();
            let config_flag = match args.iter().find(|a| ["consume", "produce"].contains(a)) {
                Some(&"consume") => "--consumer.config",
                Some(_) => "--producer.config",
                None => "--command-config",
            };
            all.extend(["--bootstrap-server", bootstrap, config_flag, config]);
            let out = Command::new(env!("CARGO_BIN_EXE_kafkit"))
                .args(&all)
                .env("RUST_LOG", "trace")
                .env("RUST_BACKTRACE", "full")
                .env("KAFKIT_DATA_DIR", dir.path().join("unused"))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    // A record for produce (the others do not read stdin).
                    let _ = child.stdin.take().map(|mut s| s.write_all(b"x\n"));
                    child.wait_with_output()
                })
                .expect("run kafkit");
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert_ne!(out.status.code(), Some(0), "{i} {all:?}: {stdout}{stderr}");
            assert!(!stderr.is_empty(), "{i} {all:?}: nothing said");
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{i} {all:?} printed the secret: {stdout}{stderr}"
            );
        }
    }
}
