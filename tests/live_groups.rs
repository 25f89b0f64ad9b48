//! Live consumer groups in one process: members on threads, the coordinator hosted by one of
//! them over its socket (`group::host`, `client::group`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use kafkit::assign::Strategy;
use kafkit::client::group::{GroupConfig, GroupMember, Partition, RebalanceEvent};
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
    owned: Vec<Partition>,
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

    fn owned(&self) -> Vec<Partition> {
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
fn settle(members: &[&Running], what: &str, check: impl Fn(&[Vec<Partition>]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let owned: Vec<Vec<Partition>> = members.iter().map(|m| m.owned()).collect();
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

fn one_each(owned: &[Vec<Partition>], busy: usize) -> bool {
    let mut all: Vec<&Partition> = owned.iter().flatten().collect();
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

#[test]
fn cooperative_sticky_revokes_only_what_moves_in_two_phases() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 4);
    let coop = vec![Strategy::CooperativeSticky];
    let a = Running::start(&datadir, config("coop", "a", coop.clone()));
    settle(&[&a], "a alone", |o| o[0].len() == 4);
    let b = Running::start(&datadir, config("coop", "b", coop.clone()));
    settle(&[&a, &b], "two members", |o| {
        o[0].len() == 2 && o[1].len() == 2
    });
    let events = a.events();
    let revoked: Vec<&Vec<Partition>> = events
        .iter()
        .filter_map(|e| match e {
            RebalanceEvent::Revoked(p) => Some(p),
            _ => None,
        })
        .collect();
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
fn commits_are_written_and_fetched_and_survive_the_coordinator() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let mut a = GroupMember::new(&datadir, config("c", "a", vec![Strategy::Range])).expect("a");
    let events = a.poll(&["t".to_string()]).expect("poll");
    assert_eq!(
        events,
        [RebalanceEvent::Assigned(vec![
            ("t".into(), 0),
            ("t".into(), 1)
        ])]
    );
    assert!(a.hosts_coordinator());
    a.commit(&[(("t".into(), 0), 5), (("t".into(), 1), 7)])
        .expect("commit");
    let fetched: BTreeMap<Partition, Option<i64>> = a
        .committed(&[("t".into(), 0), ("t".into(), 1), ("u".into(), 0)])
        .expect("fetch")
        .into_iter()
        .collect();
    assert_eq!(fetched[&("t".into(), 0)], Some(5));
    assert_eq!(fetched[&("t".into(), 1)], Some(7));
    assert_eq!(fetched[&("u".into(), 0)], None);
    a.close().expect("close");
    // A new coordinator loads them from __consumer_offsets.
    let mut b = GroupMember::new(&datadir, config("c", "b", vec![Strategy::Range])).expect("b");
    let got = b.committed(&[("t".into(), 1)]).expect("fetch");
    assert_eq!(got, [(("t".into(), 1), Some(7))]);
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
