//! Live consumer groups in one process: members on threads, the coordinator hosted by one of
//! them over its socket (`group::host`, `client::group`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use kafkit::assign::Strategy;
use kafkit::client::group::{GroupConfig, GroupMember, PartitionOffset, RebalanceEvent};
use kafkit::common::TopicPartition;
use kafkit::datadir::DataDir;
use kafkit::group::classic::CoordinatorConfig;
use kafkit::group::{GroupState, Groups};

use crate::client::topic;
use crate::common::tempdir;

fn config(group: &str, client: &str, strategies: Vec<Strategy>) -> GroupConfig {
    let mut config = GroupConfig::new(group);
    config.client_id = client.to_string();
    config.session_timeout_ms = 1_000;
    config.heartbeat_interval_ms = 50;
    config.max_poll_interval_ms = 10_000;
    config.strategies = strategies;
    config.coordinator = CoordinatorConfig {
        initial_rebalance_delay_ms: 0,
        min_session_timeout_ms: 100,
        ..CoordinatorConfig::default()
    };
    config
}

#[derive(Default)]
struct Seen {
    owned: Vec<TopicPartition>,
    generation: i32,
    events: Vec<RebalanceEvent>,
    error: Option<String>,
}

/// A member polling on its own thread, as a consumer's loop does.
struct Running {
    stop: Arc<AtomicBool>,
    /// Stop without leaving (what `kill -9` leaves behind).
    crash: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
    handle: Option<JoinHandle<()>>,
}

impl Running {
    fn start(datadir: &DataDir, config: GroupConfig) -> Running {
        let stop = Arc::new(AtomicBool::new(false));
        let crash = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (s, c, v, d) = (stop.clone(), crash.clone(), seen.clone(), datadir.clone());
        let handle = thread::spawn(move || {
            let mut member = GroupMember::new(&d, config).expect("member");
            let topics = vec!["t".to_string()];
            while !s.load(Ordering::Relaxed) {
                let events = match member.poll(&topics) {
                    Ok(events) => events,
                    Err(e) => {
                        v.lock().expect("seen").error = Some(e.to_string());
                        return;
                    }
                };
                let mut seen = v.lock().expect("seen");
                seen.owned = member.owned().to_vec();
                seen.generation = member.generation();
                seen.events.extend(events);
                drop(seen);
                thread::sleep(Duration::from_millis(10));
            }
            if c.load(Ordering::Relaxed) {
                member.abandon();
            } else {
                member.close().expect("close");
            }
        });
        Running {
            stop,
            crash,
            seen,
            handle: Some(handle),
        }
    }

    fn owned(&self) -> Vec<TopicPartition> {
        self.seen.lock().expect("seen").owned.clone()
    }

    fn generation(&self) -> i32 {
        self.seen.lock().expect("seen").generation
    }

    fn events(&self) -> Vec<RebalanceEvent> {
        self.seen.lock().expect("seen").events.clone()
    }

    fn finish(mut self, crash: bool) {
        self.crash.store(crash, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            handle.join().expect("member thread");
        }
    }
}

/// Waits until the members' views settle on one generation where `check` holds.
fn settle(members: &[&Running], what: &str, check: impl Fn(&[Vec<TopicPartition>]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let owned: Vec<Vec<TopicPartition>> = members.iter().map(|m| m.owned()).collect();
        let generations: Vec<i32> = members.iter().map(|m| m.generation()).collect();
        let errors: Vec<String> = members
            .iter()
            .filter_map(|m| m.seen.lock().expect("seen").error.clone())
            .collect();
        assert!(errors.is_empty(), "{what}: {errors:?}");
        let same = generations.windows(2).all(|w| w[0] == w[1]) && generations[0] > 0;
        if same && check(&owned) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: never settled; owned {owned:?}, generations {generations:?}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Three partitions, each owned once, `busy` members with one each.
fn one_each<T: Ord>(owned: &[Vec<T>], busy: usize) -> bool {
    let mut all: Vec<&T> = owned.iter().flatten().collect();
    all.sort();
    all.dedup();
    all.len() == 3
        && owned.iter().flatten().count() == 3
        && owned.iter().filter(|o| o.len() == 1).count() == busy
}

#[test]
fn three_members_share_three_partitions_a_fourth_idles_and_a_dead_ones_partition_moves() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 3);
    let strategies = vec![Strategy::Range, Strategy::CooperativeSticky];
    let a = Running::start(&datadir, config("g", "a", strategies.clone()));
    settle(&[&a], "a alone", |o| o[0].len() == 3);
    let b = Running::start(&datadir, config("g", "b", strategies.clone()));
    let c = Running::start(&datadir, config("g", "c", strategies.clone()));
    settle(&[&a, &b, &c], "three members", |o| one_each(o, 3));
    let d = Running::start(&datadir, config("g", "d", strategies.clone()));
    settle(&[&a, &b, &c, &d], "a fourth", |o| {
        one_each(o, 3) && o.iter().any(Vec::is_empty)
    });
    // Eager (range is first in Kafka's default list): a rebalance revokes everything first.
    assert!(
        a.events()
            .iter()
            .any(|e| matches!(e, RebalanceEvent::Revoked(p) if p.len() == 3)),
        "{:?}",
        a.events()
    );
    // A member dies without leaving (not the host, a): after its session its partition moves.
    let (dead, alive): (Vec<Running>, Vec<Running>) = [b, c, d]
        .into_iter()
        .partition(|m| m.owned().len() == 1 && m.generation() > 0);
    let mut dead = dead.into_iter();
    let victim = dead.next().expect("a busy member");
    let moved = victim.owned();
    let crashed_at = Instant::now();
    victim.finish(true);
    let rest: Vec<Running> = dead.chain(alive).collect();
    let mut everyone: Vec<&Running> = vec![&a];
    everyone.extend(rest.iter());
    settle(&everyone, "after the crash", |o| {
        one_each(o, 3) && o.iter().flatten().any(|p| moved.contains(p))
    });
    assert!(
        crashed_at.elapsed() >= Duration::from_millis(900),
        "moved before the session timeout: {:?}",
        crashed_at.elapsed()
    );
    for m in rest {
        m.finish(false);
    }
    a.finish(false);
    // What the coordinator wrote: the group, stable then empty, and its members.
    let groups = Groups::load(&datadir).expect("groups");
    let group = groups.get("g").expect("group g");
    assert_eq!(group.state, GroupState::Empty);
    assert!(group.generation >= 4, "{}", group.generation);
}

/// Member `a` of `group` alone with the `partitions` of topic `t`, then `b` beside it, settled
/// on half each.
fn a_then_b(
    datadir: &DataDir,
    group: &str,
    strategy: Strategy,
    partitions: usize,
) -> (Running, Running) {
    let a = Running::start(datadir, config(group, "a", vec![strategy]));
    settle(&[&a], "a alone", |o| o[0].len() == partitions);
    let b = Running::start(datadir, config(group, "b", vec![strategy]));
    settle(&[&a, &b], "two members", |o| {
        o[0].len() == partitions / 2 && o[1].len() == partitions / 2
    });
    (a, b)
}

/// The partitions of each revocation, in order.
fn revoked(events: &[RebalanceEvent]) -> Vec<&Vec<TopicPartition>> {
    events
        .iter()
        .filter_map(|e| match e {
            RebalanceEvent::Revoked(p) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn cooperative_sticky_revokes_only_what_moves_in_two_phases() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 4);
    let (a, b) = a_then_b(&datadir, "coop", Strategy::CooperativeSticky, 4);
    let events = a.events();
    let revoked = revoked(&events);
    assert_eq!(revoked.len(), 1, "{events:?}");
    assert_eq!(revoked[0].len(), 2, "{events:?}");
    // a kept the two it did not give up: they were never revoked.
    for p in a.owned() {
        assert!(!revoked[0].contains(&p));
    }
    b.finish(false);
    a.finish(false);
}

#[test]
fn eager_sticky_revokes_everything_and_gives_back_what_each_member_had() {
    // Range would move b from 3,4,5 to 2,3 when c joins, and a sticky assignor without the
    // members' user data (their previous assignments) would start afresh (a 0,3 ...): only
    // the previous assignments carried in the subscriptions keep each member's new partitions
    // within its old ones.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 6);
    let (a, b) = a_then_b(&datadir, "st", Strategy::Sticky, 6);
    let before = [a.owned(), b.owned()];
    let c = Running::start(&datadir, config("st", "c", vec![Strategy::Sticky]));
    settle(&[&a, &b, &c], "three members", |o| {
        o.iter().all(|owned| owned.len() == 2)
    });
    for (member, previous) in [&a, &b].into_iter().zip(&before) {
        let now = member.owned();
        assert!(
            now.iter().all(|p| previous.contains(p)),
            "{now:?} is not within {previous:?}"
        );
    }
    // Eager: a gave up all it had before each rebalance, not only what moved.
    let events = a.events();
    let revoked: Vec<usize> = revoked(&events).iter().map(|p| p.len()).collect();
    assert_eq!(revoked[..2], [6, 3], "{events:?}");
    c.finish(false);
    b.finish(false);
    a.finish(false);
}

#[test]
fn commits_are_written_and_fetched_and_survive_the_coordinator() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let mut a = GroupMember::new(&datadir, config("c", "a", vec![Strategy::Range])).expect("a");
    let events = a.poll(&["t".to_string()]).expect("poll");
    assert_eq!(
        events,
        [RebalanceEvent::Assigned(vec![
            TopicPartition::new("t", 0),
            TopicPartition::new("t", 1)
        ])]
    );
    assert!(a.hosts_coordinator());
    a.commit(&[
        PartitionOffset::new(TopicPartition::new("t", 0), 5),
        PartitionOffset::new(TopicPartition::new("t", 1), 7).with_leader_epoch(Some(3)),
    ])
    .expect("commit");
    let fetched: BTreeMap<TopicPartition, (i64, i32)> = a
        .committed(&[
            TopicPartition::new("t", 0),
            TopicPartition::new("t", 1),
            TopicPartition::new("u", 0),
        ])
        .expect("fetch")
        .into_iter()
        .map(|o| (o.partition, (o.offset, o.leader_epoch)))
        .collect();
    assert_eq!(fetched[&TopicPartition::new("t", 0)], (5, -1));
    assert_eq!(fetched[&TopicPartition::new("t", 1)], (7, 3));
    // Nothing committed: offset -1.
    assert_eq!(fetched[&TopicPartition::new("u", 0)], (-1, -1));
    a.close().expect("close");
    // A new coordinator loads them from __consumer_offsets.
    let mut b = GroupMember::new(&datadir, config("c", "b", vec![Strategy::Range])).expect("b");
    let got = b.committed(&[TopicPartition::new("t", 1)]).expect("fetch");
    assert_eq!(
        got,
        [PartitionOffset::new(TopicPartition::new("t", 1), 7).with_leader_epoch(Some(3))]
    );
    assert!(b.hosts_coordinator());
    let groups = Groups::load(&datadir).expect("groups");
    let group = groups.get("c").expect("group c");
    assert_eq!(group.offsets.len(), 2);
    b.close().expect("close");
}

#[test]
fn the_hosts_death_moves_the_coordinator_and_the_group_rejoins() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let strategies = vec![Strategy::Range];
    let a = Running::start(&datadir, config("f", "a", strategies.clone()));
    settle(&[&a], "a alone", |o| o[0].len() == 2);
    let b = Running::start(&datadir, config("f", "b", strategies.clone()));
    settle(&[&a, &b], "two", |o| o[0].len() == 1 && o[1].len() == 1);
    // a hosts the coordinator; it dies without a word.
    a.finish(true);
    settle(&[&b], "b alone", |o| o[0].len() == 2);
    b.finish(false);
}

/// A `kafkit consume --group` process, its stdout and stderr in files.
struct Process {
    child: std::process::Child,
    stdout: std::path::PathBuf,
    stderr: std::path::PathBuf,
}

const GROUP_PROPS: [&str; 10] = [
    "--consumer-property",
    "group.initial.rebalance.delay.ms=0",
    "--consumer-property",
    "group.min.session.timeout.ms=500",
    "--consumer-property",
    "session.timeout.ms=1500",
    "--consumer-property",
    "heartbeat.interval.ms=100",
    "--consumer-property",
    "auto.commit.interval.ms=200",
];

impl Process {
    fn start(data: &std::path::Path, logs: &std::path::Path, name: &str, args: &[&str]) -> Process {
        let stdout = logs.join(format!("{name}.out"));
        let stderr = logs.join(format!("{name}.err"));
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .args(args)
            .args(GROUP_PROPS)
            .env("KAFKIT_DATA_DIR", data)
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(&stdout).expect("stdout file"))
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("spawn kafkit");
        Process {
            child,
            stdout,
            stderr,
        }
    }

    /// What the process owns now, replayed from its rebalance log lines.
    fn owned(&self) -> Vec<String> {
        let log = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let mut owned: Vec<String> = Vec::new();
        for line in log.lines() {
            let list = |marker: &str| {
                line.split_once(marker).map(|(_, rest)| {
                    rest.split(" (org.apache")
                        .next()
                        .unwrap_or_default()
                        .split(", ")
                        .filter(|p| !p.is_empty())
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
            };
            if let Some(added) = list("Adding newly assigned partitions: ") {
                owned.extend(added);
            } else if let Some(gone) = list("Revoke previously assigned partitions ")
                .or_else(|| list("Lost previously assigned partitions "))
            {
                owned.retain(|p| !gone.contains(p));
            }
        }
        owned.sort();
        owned
    }

    fn signal(&mut self, signal: i32) {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: a signal to our own child, which has not been waited for yet.
        unsafe { libc::kill(pid, signal) };
    }

    fn stop(mut self) -> (String, String) {
        self.signal(libc::SIGTERM);
        self.child.wait().expect("wait");
        (
            std::fs::read_to_string(&self.stdout).expect("stdout"),
            std::fs::read_to_string(&self.stderr).expect("stderr"),
        )
    }
}

/// Topic `t` with `partitions` partitions of `count` records each, valued `p<partition>-<i>`.
fn topic_of_values(data: &std::path::Path, partitions: i32, count: usize) {
    topic(data, "t", partitions);
    for p in 0..partitions {
        let records: Vec<crate::groups::KeyValue> = (0..count)
            .map(|i| (None, Some(format!("p{p}-{i}").into_bytes())))
            .collect();
        crate::groups::append(data, &format!("t-{p}"), &records, None);
    }
}

fn wait_for(processes: &[&Process], what: &str, check: impl Fn(&[Vec<String>]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let owned: Vec<Vec<String>> = processes.iter().map(|p| p.owned()).collect();
        if check(&owned) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: never; owned {owned:?}");
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn processes_share_partitions_and_a_killed_ones_partition_moves() {
    let dir = tempdir();
    let logs = tempdir();
    let data = dir.path();
    topic_of_values(data, 3, 10);
    let args = [
        "consume",
        "--topic",
        "t",
        "--group",
        "g",
        "--from-beginning",
    ];
    let a = Process::start(data, logs.path(), "a", &args);
    wait_for(&[&a], "a alone", |o| o[0].len() == 3);
    let b = Process::start(data, logs.path(), "b", &args);
    let c = Process::start(data, logs.path(), "c", &args);
    wait_for(&[&a, &b, &c], "three", |o| one_each(o, 3));
    let d = Process::start(data, logs.path(), "d", &args);
    wait_for(&[&a, &b, &c, &d], "four", |o| {
        one_each(o, 3) && o.iter().any(Vec::is_empty)
    });
    // Eager (range): every rebalance revokes everything first, as the log shows.
    let a_log = std::fs::read_to_string(&a.stderr).expect("a's log");
    assert!(
        a_log.contains("Revoke previously assigned partitions t-0, t-1, t-2"),
        "{a_log}"
    );
    // kill -9 a busy member other than a (a hosts the coordinator).
    let mut rest = vec![b, c, d];
    let victim = rest
        .iter()
        .position(|p| p.owned().len() == 1)
        .expect("a busy member");
    let mut victim = rest.remove(victim);
    let moved = victim.owned();
    victim.signal(libc::SIGKILL);
    victim.child.wait().expect("wait");
    let victim_out = std::fs::read_to_string(&victim.stdout).expect("stdout");
    {
        let mut alive: Vec<&Process> = vec![&a];
        alive.extend(rest.iter());
        wait_for(&alive, "after kill -9", |o| {
            one_each(o, 3) && o.iter().flatten().any(|p| moved.contains(p))
        });
    }
    // Every record was printed at least once (at-least-once over the kill).
    let mut printed = victim_out;
    for p in rest.into_iter().chain([a]) {
        printed.push_str(&p.stop().0);
    }
    for p in 0..3 {
        for i in 0..10 {
            let value = format!("p{p}-{i}");
            assert!(printed.lines().any(|l| l == value), "{value} never printed");
        }
    }
    // All stopped cleanly: everything is committed, nothing left to read.
    let describe = crate::common::kafkit(data, &["consumer-groups", "--describe", "--group", "g"]);
    for line in describe.ok().lines().filter(|l| l.starts_with("g ")) {
        let columns: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(columns[3], "10", "{line}");
        assert_eq!(columns[5], "0", "{line}");
    }
}

#[test]
fn a_group_resumes_from_its_committed_offsets() {
    let dir = tempdir();
    let data = dir.path();
    topic(data, "r", 1);
    let records: Vec<crate::groups::KeyValue> = (0..10)
        .map(|i| (None, Some(format!("r{i}").into_bytes())))
        .collect();
    crate::groups::append(data, "r-0", &records, None);
    let mut args = vec![
        "consume",
        "--topic",
        "r",
        "--group",
        "resume",
        "--from-beginning",
    ];
    args.extend(GROUP_PROPS);
    let first = crate::common::kafkit(data, &[&args[..], &["--max-messages", "4"]].concat());
    assert_eq!(first.ok(), "r0\nr1\nr2\nr3\n");
    let second = crate::common::kafkit(data, &[&args[..], &["--timeout-ms", "1000"]].concat());
    assert_eq!(
        second.stdout, "r4\nr5\nr6\nr7\nr8\nr9\n",
        "{}",
        second.stderr
    );
    // The coordinator made __consumer_offsets as a broker makes it: 50 partitions, compacted.
    let described = crate::common::kafkit(
        data,
        &["topics", "--describe", "--topic", "__consumer_offsets"],
    );
    let head = described
        .ok()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        head.contains("PartitionCount: 50")
            && head.contains(
                "Configs: cleanup.policy=compact,compression.type=producer,segment.bytes=104857600"
            ),
        "{head}"
    );
    // Nothing committed and auto.offset.reset=none: Kafka's error.
    let none = crate::common::kafkit(
        data,
        &[
            "consume",
            "--topic",
            "r",
            "--group",
            "fresh",
            "--consumer-property",
            "auto.offset.reset=none",
            "--consumer-property",
            "group.initial.rebalance.delay.ms=0",
            "--timeout-ms",
            "1000",
        ],
    );
    assert!(
        none.fails()
            .contains("NoOffsetForPartitionException: Undefined offset with no reset policy for partitions: [r-0]"),
        "{}",
        none.stderr
    );
}

#[test]
fn a_static_member_that_comes_back_within_its_session_keeps_its_partitions() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let topics = ["t".to_string()];
    let static_config = |client: &str, instance: &str| {
        let mut c = config("s", client, vec![Strategy::Range]);
        c.group_instance_id = Some(instance.to_string());
        c.session_timeout_ms = 5_000;
        c
    };
    let a = Running::start(&datadir, static_config("a", "host"));
    settle(&[&a], "a alone", |o| o[0].len() == 2);
    let mut b = GroupMember::new(&datadir, static_config("b", "i-b")).expect("b");
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.owned().len() != 1 || a.owned().len() != 1 {
        b.poll(&topics).expect("poll");
        assert!(Instant::now() < deadline, "never split: {:?}", b.owned());
        thread::sleep(Duration::from_millis(10));
    }
    let (generation, owned) = (b.generation(), b.owned().to_vec());
    // A static member's close does not leave: it comes back under a new member id.
    b.close().expect("close");
    let mut again = GroupMember::new(&datadir, static_config("b", "i-b")).expect("b again");
    let events = again.poll(&topics).expect("poll");
    assert_eq!(events, [RebalanceEvent::Assigned(owned.clone())]);
    assert_eq!(again.generation(), generation, "no rebalance");
    assert_eq!(a.generation(), generation);
    again.close().expect("close");
    a.finish(false);
}

#[test]
fn cooperative_members_log_only_what_moves_and_a_pattern_subscribes_a_group() {
    let dir = tempdir();
    let logs = tempdir();
    let data = dir.path();
    topic(data, "t", 3);
    let args = [
        "consume",
        "--include",
        "t|u",
        "--group",
        "co",
        "--consumer-property",
        "partition.assignment.strategy=cooperative-sticky",
    ];
    let a = Process::start(data, logs.path(), "a", &args);
    wait_for(&[&a], "a alone", |o| o[0].len() == 3);
    let b = Process::start(data, logs.path(), "b", &args);
    wait_for(&[&a, &b], "two", |o| {
        o[0].len() + o[1].len() == 3 && !o[0].is_empty() && !o[1].is_empty()
    });
    let (_, a_log) = a.stop();
    b.stop();
    let revoked: Vec<&str> = a_log
        .lines()
        .filter(|l| l.contains("Revoke previously assigned partitions"))
        .collect();
    // One partition moves: a gives up that one alone, never all three.
    assert_eq!(revoked.len(), 1, "{a_log}");
    let list = revoked[0]
        .split("partitions ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .unwrap_or_default();
    assert!(list.starts_with("t-") && !list.contains(", "), "{a_log}");
}

/// The README's seed scene is what `scripts/seed-scene.sh` prints when it runs: three members
/// share three partitions one each, a fourth idles, the killed member's partition moves once its
/// session times out (member ids and log times compared as placeholders).
#[test]
fn the_readme_seed_scene_is_what_the_script_prints() {
    let (line, shown) = crate::readme::scripted_block("scripts/seed-scene.sh");
    let out = std::process::Command::new("timeout")
        .args(["120", "bash"])
        .arg(crate::common::repo_root().join("scripts/seed-scene.sh"))
        .env("PATH", crate::readme::path_with_kafkit())
        .env_remove("KAFKIT_DATA_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the script");
    let stdout: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(
        out.status.success(),
        "scripts/seed-scene.sh exited {:?}: {}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr),
        stdout.join("\n")
    );
    let (shown, actual) = (
        crate::readme::normalize(&shown),
        crate::readme::normalize(&stdout),
    );
    assert!(
        crate::readme::matches(&shown, &actual),
        "scripts/seed-scene.sh printed\n{}\n\nwhere README.md line {line} shows\n{}",
        actual.join("\n"),
        shown.join("\n")
    );
}

/// The assignment a live group settles on is the one `simulate-assignment` prints for the same
/// members (by their real ids: the sticky assignors' ties follow Java's hash order of the ids),
/// subscriptions and history: here cooperative-sticky over four topics, members joining one by
/// one, then one killed.
#[test]
fn a_live_group_settles_where_the_simulator_says() {
    let dir = tempdir();
    let logs = tempdir();
    let data = dir.path();
    for t in 0..4 {
        topic(data, &format!("t{t}"), 2);
    }
    let start = |name: &str| {
        let client = format!("client.id={name}");
        Process::start(
            data,
            logs.path(),
            name,
            &[
                "consume",
                "--include",
                "t[0-3]",
                "--group",
                "sim",
                "--consumer-property",
                "partition.assignment.strategy=cooperative-sticky",
                "--consumer-property",
                &client,
            ],
        )
    };
    // Settled: all eight partitions owned, every member busy.
    let settled = |o: &[Vec<String>]| {
        o.iter().map(Vec::len).sum::<usize>() == 8 && o.iter().all(|p| !p.is_empty())
    };
    let describe = || -> BTreeMap<String, Vec<(String, i64)>> {
        let run = crate::common::kafkit(
            data,
            &[
                "consumer-groups",
                "--describe",
                "--group",
                "sim",
                "--members",
                "--verbose",
                "--output",
                "json",
            ],
        );
        run.ok()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
            .filter(|v| v["type"] == "member")
            .map(|v| {
                let partitions = v["assignment"]
                    .as_array()
                    .expect("assignment")
                    .iter()
                    .map(|p| {
                        (
                            p[0].as_str().expect("topic").to_string(),
                            p[1].as_i64().expect("partition"),
                        )
                    })
                    .collect();
                (
                    v["consumer_id"].as_str().expect("id").to_string(),
                    partitions,
                )
            })
            .collect()
    };
    let c0 = start("c0");
    wait_for(&[&c0], "c0 alone", settled);
    let c1 = start("c1");
    wait_for(&[&c0, &c1], "c0 and c1", settled);
    let c2 = start("c2");
    wait_for(&[&c0, &c1, &c2], "three", settled);
    // The ids as the coordinator knows them (its GroupMetadata is written when a generation is
    // stable, which may trail the members' logs by a moment).
    let deadline = Instant::now() + Duration::from_secs(30);
    let ids = loop {
        let members = describe();
        if members.len() == 3 && members.values().all(|p| !p.is_empty()) {
            break members.into_keys().collect::<Vec<_>>();
        }
        assert!(Instant::now() < deadline, "describe never showed 3 members");
        thread::sleep(Duration::from_millis(50));
    };
    let mut c1 = c1;
    c1.signal(libc::SIGKILL);
    c1.child.wait().expect("wait");
    wait_for(&[&c0, &c2], "after the kill", settled);
    let deadline = Instant::now() + Duration::from_secs(30);
    let live = loop {
        let members = describe();
        if members.len() == 2 && members.values().map(Vec::len).sum::<usize>() == 8 {
            break members;
        }
        assert!(
            Instant::now() < deadline,
            "describe never showed the 2 survivors"
        );
        thread::sleep(Duration::from_millis(50));
    };
    c0.stop();
    c2.stop();

    let join1 = format!("join {}", ids[1]);
    let join2 = format!("join {}", ids[2]);
    let crash1 = format!("crash {}", ids[1]);
    let mut args = vec![
        "simulate-assignment",
        "--strategy",
        "cooperative-sticky",
        "--group",
        "sim",
        "--members",
        &ids[0],
        "--then",
        &join1,
        "--then",
        &join2,
        "--then",
        &crash1,
        "--output",
        "json",
    ];
    for t in ["t0:2", "t1:2", "t2:2", "t3:2"] {
        args.extend(["--topic", t]);
    }
    let simulated = crate::common::kafkit(data, &args);
    let last_round = simulated
        .ok()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("json"))
        .rfind(|v| v["type"] == "round")
        .expect("a round");
    assert_eq!(last_round["event"], crash1.as_str());
    let simulated: BTreeMap<String, Vec<(String, i64)>> =
        serde_json::from_value(last_round["assignment"].clone()).expect("assignment");
    // (Under roundrobin, say, the simulator gives another answer, and this fails.)
    assert_eq!(live, simulated, "the live group vs the simulator");
}

/// A member that stops polling for longer than `max.poll.interval.ms` is left by its heartbeat
/// thread (as Kafka's is, "consumer poll timeout has expired"), so its partitions move while it
/// is still alive; its next poll finds them lost and rejoins.
#[test]
fn a_member_that_stops_polling_leaves_and_its_partitions_move() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let strategies = vec![Strategy::Range];
    let a = Running::start(&datadir, config("mp", "a", strategies.clone()));
    settle(&[&a], "a alone", |o| o[0].len() == 2);
    let mut b_config = config("mp", "b", strategies);
    b_config.max_poll_interval_ms = 1_000;
    let (stalled_tx, stalled_rx) = std::sync::mpsc::channel();
    let (resume_tx, resume_rx) = std::sync::mpsc::channel::<()>();
    let d = datadir.clone();
    let b = thread::spawn(move || {
        let mut member = GroupMember::new(&d, b_config).expect("member");
        let topics = vec!["t".to_string()];
        let poll_until_owning = |member: &mut GroupMember| {
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut events = Vec::new();
            loop {
                events.extend(member.poll(&topics).expect("poll"));
                if !member.owned().is_empty() {
                    return events;
                }
                assert!(Instant::now() < deadline, "b never got a partition");
                thread::sleep(Duration::from_millis(10));
            }
        };
        poll_until_owning(&mut member);
        stalled_tx
            .send((member.owned().to_vec(), Instant::now()))
            .expect("send");
        // No poll until told: the heartbeat thread goes on alone.
        resume_rx.recv().expect("resume");
        let events = poll_until_owning(&mut member);
        member.close().expect("close");
        events
    });
    let (b_owned, stalled_at) = stalled_rx.recv().expect("b owns a partition");
    assert_eq!(b_owned.len(), 1, "{b_owned:?}");
    // a's view catches up with the generation b joined (within a few of its polls; b's
    // max.poll.interval.ms is far longer)...
    settle(&[&a], "a shares with b", |o| o[0].len() == 1);
    // ...and later, b stalled, takes everything back.
    settle(&[&a], "a takes over from the stalled b", |o| {
        o[0].len() == 2
    });
    assert!(
        stalled_at.elapsed() >= Duration::from_millis(900),
        "moved before max.poll.interval.ms: {:?}",
        stalled_at.elapsed()
    );
    resume_tx.send(()).expect("resume b");
    let events = b.join().expect("b");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RebalanceEvent::Lost(p) if *p == b_owned)),
        "{events:?}"
    );
    a.finish(false);
}

/// What a live group writes, read back by `dump-log-segments --offsets-decoder` (Kafka's
/// decoder's JSON): the stable generation with its member, subscription and assignment, the
/// commits made on close, and the group left Empty.
#[test]
fn what_a_group_commits_is_read_by_the_offsets_decoder() {
    let dir = tempdir();
    let data = dir.path();
    topic_of_values(data, 2, 3);
    let consume = crate::common::kafkit(
        data,
        &[
            "consume",
            "--topic",
            "t",
            "--group",
            "dec",
            "--from-beginning",
            "--max-messages",
            "6",
            "--consumer-property",
            "group.initial.rebalance.delay.ms=0",
        ],
    );
    assert_eq!(consume.ok().lines().count(), 6);
    let records = offsets_records(data, "dec");
    let groups: Vec<&serde_json::Value> = records
        .iter()
        .filter(|(k, _)| k["type"] == "2")
        .map(|(_, v)| &v["data"])
        .collect();
    let stable = groups.first().expect("a GroupMetadata record");
    assert_eq!(stable["protocolType"], "consumer");
    assert_eq!(stable["protocol"], "range");
    let member = &stable["members"][0];
    assert_eq!(stable["leader"], member["memberId"]);
    assert_eq!(member["clientId"], "console-consumer");
    assert_eq!(member["subscription"]["topics"], serde_json::json!(["t"]));
    assert_eq!(
        member["assignment"]["assignedPartitions"],
        serde_json::json!([{"topic": "t", "partitions": [0, 1]}])
    );
    let empty = groups.last().expect("the group left");
    assert_eq!(empty["members"], serde_json::json!([]));
    assert!(empty["generation"].as_i64() > stable["generation"].as_i64());
    // The latest commit of each partition: all three records of each.
    let mut committed = BTreeMap::new();
    for (k, v) in records.iter().filter(|(k, _)| k["type"] == "1") {
        assert_eq!(k["data"]["topic"], "t");
        // The leader epoch of the last record read (its batch's partitionLeaderEpoch, 0 in a
        // data directory, one broker at epoch 0), as Kafka's consumer commits it.
        assert_eq!(v["data"]["leaderEpoch"], 0, "{v}");
        committed.insert(
            k["data"]["partition"].as_i64().expect("partition"),
            v["data"]["offset"].as_i64().expect("offset"),
        );
    }
    assert_eq!(committed, BTreeMap::from([(0, 3), (1, 3)]));
}

/// The records of `group` in its `__consumer_offsets` partition, as `dump-log-segments
/// --offsets-decoder` prints them: (key, payload) JSON.
fn offsets_records(
    data: &std::path::Path,
    group: &str,
) -> Vec<(serde_json::Value, serde_json::Value)> {
    let n = kafkit::assign::java::coordinator_partition(group, 50);
    let log = data
        .join(format!("__consumer_offsets-{n}"))
        .join("00000000000000000000.log");
    let dump = crate::common::kafkit(
        data,
        &[
            "dump-log-segments",
            "--offsets-decoder",
            "--files",
            log.to_str().expect("path"),
        ],
    );
    dump.ok()
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(" key: ")?;
            let (key, payload) = rest.split_once(" payload: ")?;
            Some((
                serde_json::from_str(key).expect("key json"),
                serde_json::from_str(payload).expect("payload json"),
            ))
        })
        .filter(|(k, _): &(serde_json::Value, serde_json::Value)| k["data"]["group"] == group)
        .collect()
}

/// `--describe --state` of `group`: its state and member count.
fn group_state(data: &std::path::Path, group: &str) -> (String, String) {
    let run = crate::common::kafkit(
        data,
        &["consumer-groups", "--describe", "--group", group, "--state"],
    );
    let prefix = format!("{group} ");
    let line = run
        .ok()
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_default()
        .to_string();
    let columns: Vec<&str> = line.split_whitespace().collect();
    let field = |i: usize| columns.get(i).copied().unwrap_or_default().to_string();
    // GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS; an Empty group has no strategy.
    if columns.len() == 6 {
        (field(4), field(5))
    } else {
        (field(3), field(4))
    }
}

/// Kafka's coordinator outlives the members; here it dies with them. The group still reads as
/// Kafka's would: Stable until the members' sessions end, then Empty at the next generation;
/// and the next host records that Empty group before it answers.
#[test]
fn members_killed_with_their_host_expire_when_their_sessions_end() {
    let dir = tempdir();
    let logs = tempdir();
    let data = dir.path();
    topic_of_values(data, 2, 5);
    let args = [
        "consume",
        "--topic",
        "t",
        "--group",
        "g",
        "--from-beginning",
    ];
    let mut a = Process::start(data, logs.path(), "a", &args);
    wait_for(&[&a], "a alone", |o| o[0].len() == 2);
    let mut b = Process::start(data, logs.path(), "b", &args);
    wait_for(&[&a, &b], "two", |o| o.iter().all(|owned| owned.len() == 1));
    assert_eq!(group_state(data, "g"), ("Stable".into(), "2".into()));
    // Both die at once, the host (a) with them: no process is left to expire anyone.
    for p in [&mut a, &mut b] {
        p.signal(libc::SIGKILL);
        p.child.wait().expect("wait");
    }
    let killed = Instant::now();
    let soon = group_state(data, "g");
    // Sessions are 1.5 s and the host stamped itself alive at most 1 s before it died: a
    // reader within half a second still sees the members (a slower one may not).
    if killed.elapsed() < Duration::from_millis(400) {
        assert_eq!(soon, ("Stable".into(), "2".into()));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while group_state(data, "g").0 != "Empty" {
        assert!(Instant::now() < deadline, "the members never expired");
        thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(group_state(data, "g"), ("Empty".into(), "0".into()));
    let offsets = crate::common::kafkit(data, &["consumer-groups", "--describe", "--group", "g"]);
    assert!(
        offsets
            .stderr
            .contains("Consumer group 'g' has no active members."),
        "{}",
        offsets.stderr
    );
    let list = crate::common::kafkit(data, &["consumer-groups", "--list", "--state"]);
    assert!(
        list.ok()
            .lines()
            .any(|l| l.split_whitespace().eq(["g", "Empty"])),
        "{}",
        list.stdout
    );
    let stable = offsets_records(data, "g")
        .into_iter()
        .rfind(|(k, _)| k["type"] == "2")
        .expect("the group's metadata")
        .1;
    assert_eq!(stable["data"]["members"].as_array().map(Vec::len), Some(2));
    // The next host (here the reset's, for the length of the command) records the expiry it
    // starts from: the next generation, Empty; then the reset commits.
    crate::common::kafkit(
        data,
        &[
            "consumer-groups",
            "--reset-offsets",
            "--group",
            "g",
            "--topic",
            "t",
            "--to-earliest",
            "--execute",
        ],
    )
    .ok();
    let metadata: Vec<serde_json::Value> = offsets_records(data, "g")
        .into_iter()
        .filter(|(k, _)| k["type"] == "2")
        .map(|(_, v)| v["data"].clone())
        .collect();
    let empty = metadata.last().expect("metadata");
    assert_eq!(empty["members"], serde_json::json!([]));
    assert_eq!(empty["protocolType"], "consumer");
    assert_eq!(
        empty["generation"].as_i64(),
        stable["data"]["generation"].as_i64().map(|g| g + 1)
    );
    assert_eq!(group_state(data, "g"), ("Empty".into(), "0".into()));
    // A host that finds the group Empty writes nothing more.
    crate::common::kafkit(
        data,
        &[
            "consumer-groups",
            "--reset-offsets",
            "--group",
            "g",
            "--topic",
            "t",
            "--to-latest",
            "--execute",
        ],
    )
    .ok();
    let again = offsets_records(data, "g")
        .into_iter()
        .filter(|(k, _)| k["type"] == "2")
        .count();
    assert_eq!(again, metadata.len());
}
