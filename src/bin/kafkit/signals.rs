//! The signals that end a command the way the JVM ends Kafka's tools: SIGINT, SIGTERM and SIGHUP
//! run the JVM's shutdown hooks (the console consumer prints its total, the console producer
//! closes its producer, writing every record it was given), then the JVM exits with 128 + the
//! signal's number. kafkit catches them (through signal-hook) so that a command ends its work
//! the same way and exits with the same code.
//!
//! A caught signal is seen two ways, the library's two ways of asking a console tool to stop:
//! [`StopSignals::flag`] (a flag, for loops that look at it between steps: the console
//! consumer's) and [`StopSignals::input`], a [`WaitForInput`] that wakes a thread waiting for
//! input (a self-pipe polled beside the input, so no signal is missed between a look at the flag
//! and the wait: the console producer's).

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use kafkit::client::console::{WaitForInput, Wake};

use super::Exit;

/// The signals that stop a command, as they run the JVM's shutdown hooks.
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The number of the last stop signal caught (0: none yet).
static CAUGHT: AtomicUsize = AtomicUsize::new(0);

/// The stop signal caught since [`StopSignals::catch`], if one was.
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        signal => i32::try_from(signal).ok(),
    }
}

/// SIGINT, SIGTERM and SIGHUP, caught for the rest of the process's life.
#[derive(Debug)]
pub struct StopSignals {
    /// Readable once a stop signal has been caught (never read: it stays readable).
    wake: UnixStream,
    /// Set once a stop signal has been caught.
    stop: Arc<AtomicBool>,
}

impl StopSignals {
    /// Catches SIGINT, SIGTERM and SIGHUP: from now on they no longer end the process.
    pub fn catch() -> io::Result<Self> {
        let (wake, notify) = UnixStream::pair()?;
        let stop = Arc::new(AtomicBool::new(false));
        for signal in STOP_SIGNALS {
            // The flags are set first: once the pipe is readable, `caught` says which signal.
            signal_hook::flag::register_usize(signal, &CAUGHT, signal as usize)?;
            signal_hook::flag::register(signal, Arc::clone(&stop))?;
            signal_hook::low_level::pipe::register(signal, notify.try_clone()?)?;
        }
        Ok(Self { wake, stop })
    }

    /// Set once a stop signal has been caught: the library's stop request.
    pub fn flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// The input at `input`, waited for beside these signals.
    pub fn input(&self, input: RawFd) -> SignalsOrInput<'_> {
        SignalsOrInput {
            signals: self,
            input,
        }
    }

    /// The stop signal caught, if one was ([`caught`]).
    pub fn caught(&self) -> Option<i32> {
        caught()
    }

    /// The name of the stop signal caught (`SIGINT`), if one was.
    pub fn caught_name(&self) -> Option<&'static str> {
        self.caught().map(|signal| match signal {
            libc::SIGINT => "SIGINT",
            libc::SIGTERM => "SIGTERM",
            libc::SIGHUP => "SIGHUP",
            _ => "a signal",
        })
    }

    /// The error that ends the command with the JVM's exit code for the signal caught (128 +
    /// its number), printing nothing, if one was caught.
    pub fn exit(&self) -> Option<Exit> {
        self.caught().map(|signal| Exit {
            message: String::new(),
            code: u8::try_from(128 + signal).unwrap_or(1),
        })
    }

    /// Waits until `input` can be read, a stop signal is caught (also one caught before the
    /// call) or `deadline` passes.
    pub fn wait_readable(&self, input: RawFd, deadline: Option<Instant>) -> io::Result<Wake> {
        loop {
            if let Some(name) = self.caught_name() {
                return Ok(Wake::Stop(name));
            }
            let timeout = match deadline {
                None => -1,
                Some(at) => {
                    let left = at.saturating_duration_since(Instant::now());
                    // Rounded up: a wait that ends before the deadline would only wait again.
                    let ms = left.as_micros().div_ceil(1000);
                    libc::c_int::try_from(ms).unwrap_or(libc::c_int::MAX)
                }
            };
            let mut fds = [
                libc::pollfd {
                    fd: input,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: self.wake.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            // SAFETY: `fds` is an array of two initialised pollfd structures that outlives the
            // call, and its length is passed with it.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
            if ready < 0 {
                let error = io::Error::last_os_error();
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(error);
            }
            let [input, wake] = fds;
            if wake.revents != 0 {
                return Ok(Wake::Stop(self.caught_name().unwrap_or("a signal")));
            }
            // Readable, at its end (POLLHUP) or broken (POLLERR, POLLNVAL): the read tells.
            if input.revents != 0 {
                return Ok(Wake::Input);
            }
            if ready == 0 && deadline.is_some_and(|at| Instant::now() >= at) {
                return Ok(Wake::Deadline);
            }
        }
    }
}

/// An input waited for beside the stop signals ([`StopSignals::input`]).
#[derive(Debug)]
pub struct SignalsOrInput<'a> {
    signals: &'a StopSignals,
    input: RawFd,
}

impl WaitForInput for SignalsOrInput<'_> {
    fn wait(&mut self, deadline: Option<Instant>) -> io::Result<Wake> {
        self.signals.wait_readable(self.input, deadline)
    }
}
