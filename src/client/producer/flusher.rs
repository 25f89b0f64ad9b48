//! The group commit of `acks=all`: a flushing thread beside the sender that makes written
//! batches durable a group at a time, then acknowledges them.
//!
//! The sender hands each written group's events, with the segment files it touched, to this
//! thread ([`Flusher::submit`]) after it has released the partition's lock. The thread takes
//! every group queued while its last `fdatasync` ran, syncs their files once, then acknowledges
//! them: it runs the producer's callback ([`Callback`], so with `acks=all` send callbacks run
//! here, outside any partition lock) or replies to the producer. The sender waits for the disk
//! only when [`FLUSH_BACKLOG`] groups are pending. A failed fsync acknowledges nothing after it
//! and stops the sender ([`Flusher::has_failed`]).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;

use crate::datadir::{DataDirError, TopicPartition};

use super::sender::Reply;
use super::{Callback, Event, ProduceError};

/// Written records waiting for an fsync, and the files that must be synced for them.
struct FlushJob {
    files: BTreeSet<PathBuf>,
    events: Vec<Event>,
    /// Told once this job and every one before it are synced and acknowledged.
    done: Option<mpsc::Sender<()>>,
}

/// The group commit's flushing thread, as the sender sees it.
pub(super) struct Flusher {
    jobs: mpsc::SyncSender<FlushJob>,
    thread: thread::JoinHandle<()>,
    /// Set by the flushing thread when an fsync failed: nothing written after is ever
    /// acknowledged, so the sender stops appending.
    failed: Arc<AtomicBool>,
}

/// How many written groups may wait for their fsync before the sender waits too (a group is
/// up to [`super::accumulator::HANDOFF_BYTES`] or one linger's records).
const FLUSH_BACKLOG: usize = 64;

impl Flusher {
    /// Starts the flushing thread; it reports events through `callback` or `replies`.
    pub(super) fn start(
        callback: Option<Callback>,
        replies: mpsc::Sender<Reply>,
    ) -> Result<Self, ProduceError> {
        let (jobs, inbox) = mpsc::sync_channel(FLUSH_BACKLOG);
        let failed = Arc::new(AtomicBool::new(false));
        let flushing = FlushingThread {
            callback,
            replies,
            failed: Arc::clone(&failed),
        };
        let thread = thread::Builder::new()
            .name("kafkit-group-commit".to_string())
            .spawn(move || flushing.run(inbox))
            .map_err(|e| ProduceError::Sender(format!("starting the flushing thread: {e}")))?;
        Ok(Flusher {
            jobs,
            thread,
            failed,
        })
    }

    /// Whether an fsync failed (or the thread died): nothing is acknowledged from then on.
    pub(super) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// Queues written records and the files to sync before they are acknowledged, waiting
    /// while [`FLUSH_BACKLOG`] groups are pending.
    pub(super) fn submit(&self, files: BTreeSet<PathBuf>, events: Vec<Event>) {
        let job = FlushJob {
            files,
            events,
            done: None,
        };
        // The thread ends only when the sender hangs up: a refused job means it died, and
        // nothing is acknowledged from now on.
        if self.jobs.send(job).is_err() {
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Waits until everything submitted so far is synced and acknowledged.
    pub(super) fn barrier(&self) {
        let (done, wait) = mpsc::channel();
        let job = FlushJob {
            files: BTreeSet::new(),
            events: Vec::new(),
            done: Some(done),
        };
        // The thread ends only when the sender hangs up: no answer means it died.
        if self.jobs.send(job).is_err() || wait.recv().is_err() {
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Hangs up and waits for the last acknowledgements; returns whether a flush failed (or the
    /// thread died).
    pub(super) fn finish(self) -> bool {
        drop(self.jobs);
        // A panic of the flushing thread leaves records unacknowledged, never lost.
        let panicked = self.thread.join().is_err();
        panicked || self.failed.load(Ordering::Acquire)
    }
}

/// The thread that syncs written segment files and acknowledges what they hold.
struct FlushingThread {
    callback: Option<Callback>,
    replies: mpsc::Sender<Reply>,
    failed: Arc<AtomicBool>,
}

impl FlushingThread {
    fn run(mut self, inbox: mpsc::Receiver<FlushJob>) {
        while let Ok(first) = inbox.recv() {
            // Every job that came while the last fsync ran is covered by the next one.
            let mut jobs = vec![first];
            jobs.extend(inbox.try_iter());
            let mut files = BTreeSet::new();
            for job in &mut jobs {
                files.append(&mut job.files);
            }
            if !self.failed.load(Ordering::Acquire) {
                if let Err(e) = sync_files(&files) {
                    self.failed.store(true, Ordering::Release);
                    let _ = self.replies.send(Reply::Fatal(e));
                }
            }
            let synced = !self.failed.load(Ordering::Acquire);
            for job in jobs {
                if synced {
                    self.acknowledge(job.events);
                }
                if let Some(done) = job.done {
                    let _ = done.send(());
                }
            }
        }
    }

    fn acknowledge(&mut self, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        match &mut self.callback {
            Some(callback) => callback(&events),
            None => {
                for event in events {
                    // The producer is gone only when it is being dropped: nobody is left to tell.
                    let _ = self.replies.send(Reply::Event(event));
                }
            }
        }
    }
}

/// Makes the written data of `files` durable (`fdatasync`; appends change a file's size, which
/// it syncs too). A file that is gone fails: its topic was deleted, which is reported as the
/// writer reports it (Kafka's UnknownTopicOrPartition).
fn sync_files(files: &BTreeSet<PathBuf>) -> Result<(), ProduceError> {
    for path in files {
        std::fs::File::open(path)
            .and_then(|file| file.sync_data())
            .map_err(|source| {
                let gone = path
                    .parent()
                    .and_then(|dir| dir.file_name())
                    .and_then(|name| TopicPartition::from_dir_name(&name.to_string_lossy()))
                    .filter(|_| source.kind() == std::io::ErrorKind::NotFound);
                match gone {
                    Some(tp) => DataDirError::UnknownTopicOrPartition(tp).into(),
                    None => ProduceError::Flush {
                        path: path.clone(),
                        source,
                    },
                }
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::producer::RecordMetadata;

    fn written(offset: i64) -> Event {
        Event::Written(RecordMetadata {
            partition: 0,
            offset,
            timestamp: 0,
        })
    }

    #[test]
    fn group_commit_acknowledges_only_what_a_successful_fsync_covers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let present = dir.path().join("00000000000000000000.log");
        std::fs::write(&present, b"x").expect("segment");
        let acked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&acked);
        let (replies, outbox) = mpsc::channel();
        let callback: Callback = Box::new(move |events: &[Event]| {
            seen.lock().expect("lock").extend_from_slice(events);
        });
        let flusher = Flusher::start(Some(callback), replies).expect("start");
        let files = |file: &std::path::Path| BTreeSet::from([file.to_path_buf()]);
        flusher.submit(files(&present), vec![written(0)]);
        flusher.barrier();
        assert_eq!(*acked.lock().expect("lock"), vec![written(0)]);
        // The file is gone (say its topic was deleted): the fsync fails, its records and every
        // later one stay unacknowledged, and the producer is told why.
        flusher.submit(files(&dir.path().join("gone.log")), vec![written(1)]);
        flusher.submit(files(&present), vec![written(2)]);
        flusher.barrier();
        assert!(flusher.has_failed());
        assert_eq!(*acked.lock().expect("lock"), vec![written(0)]);
        flusher.finish();
        let fatal: Vec<String> = outbox
            .try_iter()
            .filter_map(|reply| match reply {
                Reply::Fatal(e) => Some(e.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(fatal.len(), 1, "{fatal:?}");
        assert!(fatal[0].starts_with("flushing ") && fatal[0].contains("gone.log"));
    }
}
