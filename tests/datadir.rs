//! The data-directory library: names, checkpoints, metadata files, the lock, crash leftovers.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use kafkit::datadir::checkpoint::{read_checkpoint, write_checkpoint};
use kafkit::datadir::meta::{read_partition_metadata, PARTITION_METADATA};
use kafkit::datadir::names::{
    has_collision, has_collision_chars, unify_collision_chars, validate_topic_name,
};
use kafkit::datadir::{
    DataDir, DataDirError, EpochEntry, LeaderEpochCheckpoint, NewTopic, OffsetCheckpoint,
    TopicConfigs, TopicPartition, TopicSource, Uuid,
};
use kafkit::log::{CompressionPolicy, LogConfig};

use crate::common::{fixtures, tempdir, vectors};

fn names_doc() -> Option<serde_json::Value> {
    let dir = vectors()?;
    let text = fs::read_to_string(dir.join("cli/topic_names.json")).expect("vectors");
    Some(serde_json::from_str(&text).expect("json"))
}

fn expand(name: &str) -> String {
    match name.strip_prefix("a*") {
        Some(n) => "a".repeat(n.parse().expect("count")),
        None => name.to_string(),
    }
}

#[test]
fn topic_name_vectors() {
    let Some(doc) = names_doc() else { return };
    for case in doc["valid"].as_array().expect("valid") {
        let name = expand(case["name"].as_str().expect("name"));
        assert_eq!(validate_topic_name(&name), Ok(()), "{name}");
    }
    let invalid = doc["invalid"].as_array().expect("invalid");
    assert!(invalid.len() >= 20);
    for case in invalid {
        let name = expand(case["name"].as_str().expect("name"));
        let message = case["message"]
            .as_str()
            .expect("message")
            .replace("<250 x a>", &"a".repeat(250));
        let err = validate_topic_name(&name).expect_err(&name);
        assert_eq!(err.to_string(), message, "{name:?}");
    }
    for name in doc["collision_chars_true"].as_array().expect("true") {
        assert!(has_collision_chars(name.as_str().expect("name")));
    }
    for name in doc["collision_chars_false"].as_array().expect("false") {
        assert!(!has_collision_chars(name.as_str().expect("name")));
    }
    for (from, to) in doc["unify"].as_object().expect("unify") {
        assert_eq!(unify_collision_chars(from), to.as_str().expect("to"));
    }
    for pair in doc["collide_pairs_true"].as_array().expect("pairs") {
        let (a, b) = (pair[0].as_str().expect("a"), pair[1].as_str().expect("b"));
        assert!(has_collision(a, b), "{a} {b}");
    }
    for pair in doc["collide_pairs_false"].as_array().expect("pairs") {
        let (a, b) = (pair[0].as_str().expect("a"), pair[1].as_str().expect("b"));
        assert!(!has_collision(a, b), "{a} {b}");
    }
}

#[test]
fn offset_checkpoint_round_trip_and_exact_bytes() {
    let tmp = tempdir();
    let path = tmp.path().join("recovery-point-offset-checkpoint");
    let mut offsets = BTreeMap::new();
    offsets.insert(TopicPartition::new("b", 1), 7);
    offsets.insert(TopicPartition::new("a", 0), 5);
    offsets.insert(TopicPartition::new("a-b", 10), i64::MAX);
    OffsetCheckpoint::write(&path, &offsets).expect("write");
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        format!("0\n3\na 0 5\na-b 10 {}\nb 1 7\n", i64::MAX)
    );
    assert_eq!(OffsetCheckpoint::read(&path).expect("read"), offsets);
    assert!(!tmp
        .path()
        .join("recovery-point-offset-checkpoint.tmp")
        .exists());
    // Missing and empty files have no entries, as Kafka creates them empty.
    assert!(OffsetCheckpoint::read(&tmp.path().join("missing"))
        .expect("missing")
        .is_empty());
    fs::write(&path, "").expect("write");
    assert!(OffsetCheckpoint::read(&path).expect("empty").is_empty());
    OffsetCheckpoint::write(&path, &BTreeMap::new()).expect("write");
    assert_eq!(fs::read_to_string(&path).expect("read"), "0\n0\n");
}

#[test]
fn checkpoint_errors_carry_kafkas_messages() {
    let tmp = tempdir();
    let path = tmp.path().join("log-start-offset-checkpoint");
    let shown = path.display().to_string();
    let cases = [
        (
            "1\n0\n",
            format!("Unrecognised version:1, expected version: 0 in checkpoint file at: {shown}"),
        ),
        (
            "x\n",
            format!("Malformed line in checkpoint file [{shown}]: x"),
        ),
        (
            "0\nzz\n",
            format!("Malformed line in checkpoint file [{shown}]: zz"),
        ),
        (
            "0\n1\na 0\n",
            format!("Malformed line in checkpoint file [{shown}]: a 0"),
        ),
        (
            "0\n1\na x 5\n",
            format!("Malformed line in checkpoint file [{shown}]: a x 5"),
        ),
        (
            "0\n1\n a 0 5\n",
            format!("Malformed line in checkpoint file [{shown}]:  a 0 5"),
        ),
        (
            "0\n2\na 0 5\n",
            format!("Expected [2] entries in checkpoint file [{shown}], but found only [1]"),
        ),
    ];
    for (text, message) in cases {
        fs::write(&path, text).expect("write");
        let err = OffsetCheckpoint::read(&path).expect_err(text);
        assert_eq!(err.to_string(), message, "{text:?}");
    }
    // Fields split on any whitespace run.
    fs::write(&path, "0\n1\na\t0   5\n").expect("write");
    let read = OffsetCheckpoint::read(&path).expect("read");
    assert_eq!(read.get(&TopicPartition::new("a", 0)), Some(&5));
}

#[test]
fn leader_epoch_checkpoint_round_trip() {
    let tmp = tempdir();
    let path = tmp.path().join("leader-epoch-checkpoint");
    let entries = vec![
        EpochEntry {
            epoch: 0,
            start_offset: 0,
        },
        EpochEntry {
            epoch: 3,
            start_offset: 120,
        },
    ];
    LeaderEpochCheckpoint::write(&path, &entries).expect("write");
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        "0\n2\n0 0\n3 120\n"
    );
    assert_eq!(LeaderEpochCheckpoint::read(&path).expect("read"), entries);
    // The generic reader takes any version.
    write_checkpoint(&path, 7, &["x".to_string()]).expect("write");
    let lines = read_checkpoint(&path, 7, |f| f.first().map(|s| s.to_string())).expect("read");
    assert_eq!(lines, vec!["x".to_string()]);
}

#[test]
fn reads_checkpoints_a_broker_wrote() {
    let Some(fixtures) = fixtures() else { return };
    let shara = fixtures.join("SharaWeil__kafka-0.11.0");
    let points =
        OffsetCheckpoint::read(&shara.join("recovery-point-offset-checkpoint")).expect("read");
    assert_eq!(points.len(), 4);
    assert_eq!(points.get(&TopicPartition::new("mac_test", 0)), Some(&78));
    assert_eq!(points.get(&TopicPartition::new("test0", 2)), Some(&11));
    let epochs =
        LeaderEpochCheckpoint::read(&shara.join("test0-0/leader-epoch-checkpoint")).expect("read");
    assert_eq!(
        epochs,
        vec![EpochEntry {
            epoch: 0,
            start_offset: 0
        }]
    );
    let dir = DataDir::open(&shara).expect("open");
    let meta = dir.meta().expect("meta.properties");
    assert_eq!((meta.version, meta.node_id), (0, 0));
    let topics = dir.topics().expect("topics");
    assert_eq!(topics.len(), 1);
    assert_eq!(topics[0].source, TopicSource::Broker);
    assert_eq!(topics[0].id, None);
    let itu = fixtures.join("ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions");
    let id = read_partition_metadata(&itu.join("__transaction_state-44")).expect("read");
    assert_eq!(
        id.map(|u| u.to_string()).as_deref(),
        Some("XDEHC8lXSzWcXdpwB6TNQg")
    );
}

#[test]
fn meta_properties_in_any_key_order_and_both_versions() {
    let tmp = tempdir();
    let path = tmp.path().join("meta.properties");
    fs::write(&path, "#\n#Wed May 08 10:23:45 CST 2024\ncluster.id=abc\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAQ\nnode.id=3\nversion=1\n").expect("write");
    let meta = kafkit::datadir::MetaProperties::read(&path).expect("read");
    assert_eq!((meta.version, meta.node_id), (1, 3));
    assert_eq!(meta.cluster_id.as_deref(), Some("abc"));
    assert_eq!(meta.directory_id, Some(Uuid::ONE));
    fs::write(&path, "version=0\nbroker.id=5\n").expect("write");
    let meta = kafkit::datadir::MetaProperties::read(&path).expect("read");
    assert_eq!((meta.version, meta.node_id), (0, 5));
    // The broker id of the one-broker cluster follows node.id.
    let dir = DataDir::open(tmp.path()).expect("open");
    assert_eq!(dir.node_id(), 5);
    fs::write(&path, "node.id=1\n").expect("write");
    assert!(kafkit::datadir::MetaProperties::read(&path).is_err());
}

#[test]
fn topic_ids_are_kafka_shaped() {
    for _ in 0..2000 {
        let id = Uuid::random();
        let text = id.to_string();
        assert_eq!(text.len(), 22);
        assert!(!text.starts_with('-'));
        assert!(id != Uuid::ZERO && id != Uuid::ONE);
        assert_eq!(text.parse::<Uuid>().expect("parse"), id);
    }
}

fn new_topic(name: &str, partitions: i32) -> NewTopic {
    NewTopic {
        name: name.into(),
        partitions: Some(partitions),
        ..NewTopic::default()
    }
}

fn no_temp_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).expect("dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            found.extend(no_temp_files(&entry.path()));
        } else if name.contains(".tmp") {
            found.push(entry.path().display().to_string());
        }
    }
    found
}

#[test]
fn library_create_alter_delete_and_log_config() {
    let tmp = tempdir();
    let dir = DataDir::create(tmp.path().join("d")).expect("create");
    let lock = dir.lock().expect("lock");
    let mut new = new_topic("logs", 2);
    new.configs = TopicConfigs::new([("segment.bytes", "1048576"), ("compression.type", "lz4")])
        .expect("configs");
    let topic = dir.create_topic(&lock, &new).expect("create");
    assert_eq!(topic.partition_count(), 2);
    let config = dir
        .topic("logs")
        .expect("read")
        .expect("topic")
        .log_config();
    assert_eq!(config.segment_bytes, 1_048_576);
    assert_eq!(
        config.compression,
        CompressionPolicy::Fixed(kafkit::record::Compression::Lz4)
    );
    assert_eq!(config.segment_ms, LogConfig::default().segment_ms);
    let grown = dir.create_partitions(&lock, "logs", 5, None).expect("grow");
    assert_eq!(grown.partition_count(), 5);
    assert_eq!(
        dir.topic("logs").expect("read").expect("topic").id,
        topic.id
    );
    OffsetCheckpoint::write(
        &dir.root_file("recovery-point-offset-checkpoint"),
        &BTreeMap::new(),
    )
    .expect("write");
    assert!(
        no_temp_files(dir.path()).is_empty(),
        "{:?}",
        no_temp_files(dir.path())
    );
    assert!(matches!(
        dir.create_topic(&lock, &new_topic("logs", 1)),
        Err(DataDirError::TopicExists(_))
    ));
    dir.delete_topic(&lock, "logs").expect("delete");
    assert!(dir.topics().expect("topics").is_empty());
    assert!(!dir.partition_dir(&TopicPartition::new("logs", 0)).exists());
    assert!(no_temp_files(dir.path()).is_empty());
}

#[test]
fn lock_conflicts_with_a_brokers_posix_lock() {
    use std::os::fd::AsRawFd;
    let tmp = tempdir();
    let dir = DataDir::create(tmp.path()).expect("create");
    // A broker's FileChannel.tryLock(): a classic POSIX fcntl write lock on `.lock`.
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(tmp.path().join(".lock"))
        .expect("open");
    // SAFETY: zeroed flock is valid; fd is open for the duration of the call.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    // F_SETLKW, not F_SETLK: `DataDir::create` took and released the OFD lock, and a child that
    // another test forks in that instant keeps the open file description (and its lock) until
    // it execs; waiting a moment for it is right, failing is a flake.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLKW, &fl as *const libc::flock) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    let err = dir
        .lock_wait(Duration::from_millis(20))
        .expect_err("held by the 'broker'");
    assert!(
        err.to_string()
            .starts_with("Failed to acquire lock on file .lock in "),
        "{err}"
    );
    drop(file);
    dir.lock_wait(Duration::ZERO).expect("free again");
}

#[test]
fn crash_leftovers_are_invisible_then_cleaned_by_the_next_writer() {
    let tmp = tempdir();
    let dir = DataDir::create(tmp.path()).expect("create");
    {
        let lock = dir.lock().expect("lock");
        dir.create_topic(&lock, &new_topic("real", 1))
            .expect("create");
    }
    // A create that crashed before its commit point: the topic is still `pending` in the
    // metadata file and its partition directories exist (one without partition.metadata yet).
    let ghost = Uuid::random();
    let meta_path = tmp.path().join(kafkit::datadir::TOPICS_FILE);
    let mut doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&meta_path).expect("read")).expect("json");
    doc["pending"]["ghost"] = serde_json::json!({
        "topic_id": ghost.to_string(),
        "replica_assignment": [[0], [0]],
        "configs": {}
    });
    fs::write(&meta_path, doc.to_string()).expect("write");
    for p in 0..2 {
        let pd = tmp.path().join(format!("ghost-{p}"));
        fs::create_dir(&pd).expect("mkdir");
        if p == 0 {
            fs::write(
                pd.join(PARTITION_METADATA),
                format!("version: 0\ntopic_id: {ghost}"),
            )
            .expect("write");
        }
    }
    // A half-finished delete, an interrupted alter of "real", a torn metadata write.
    let deleting = tmp
        .path()
        .join("old-0.0123456789abcdef0123456789abcdef-delete");
    fs::create_dir(&deleting).expect("mkdir");
    let real_id = dir
        .topic("real")
        .expect("read")
        .expect("real")
        .id
        .expect("id");
    let extra = tmp.path().join("real-1");
    fs::create_dir(&extra).expect("mkdir");
    fs::write(
        extra.join(PARTITION_METADATA),
        format!("version: 0\ntopic_id: {real_id}"),
    )
    .expect("write");
    let torn = tmp
        .path()
        .join(format!("{}.tmp", kafkit::datadir::TOPICS_FILE));
    fs::write(&torn, "{").expect("write");

    let names: Vec<String> = dir
        .topics()
        .expect("topics")
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, vec!["real".to_string()]);
    assert_eq!(
        dir.topic("real")
            .expect("read")
            .expect("real")
            .partition_count(),
        1
    );

    drop(dir.lock().expect("lock"));
    assert!(!tmp.path().join("ghost-0").exists() && !tmp.path().join("ghost-1").exists());
    let doc: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&meta_path).expect("read")).expect("json");
    assert_eq!(doc["pending"], serde_json::json!({}));
    assert!(doc["topics"]["real"].is_object());
    assert!(!deleting.exists());
    assert!(!extra.exists());
    assert!(!torn.exists());
    assert!(tmp.path().join("real-0").is_dir());
}

#[test]
fn a_kafkit_directory_holds_only_what_a_broker_accepts() {
    // A broker's LogManager treats every subdirectory as `<topic>-<partition>`: kafkit's own
    // metadata must be plain files.
    let tmp = tempdir();
    let dir = DataDir::create(tmp.path()).expect("create");
    let lock = dir.lock().expect("lock");
    dir.create_topic(&lock, &new_topic("a-b", 2))
        .expect("create");
    dir.create_topic(&lock, &new_topic("c", 1)).expect("create");
    dir.delete_topic(&lock, "c").expect("delete");
    for entry in fs::read_dir(tmp.path()).expect("dir") {
        let entry = entry.expect("entry");
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(TopicPartition::from_dir_name(&name).is_some(), "{name}");
        }
    }
}

#[test]
fn broker_topics_without_kafkit_metadata_can_be_grown_and_deleted() {
    let tmp = tempdir();
    for p in 0..2 {
        fs::create_dir(tmp.path().join(format!("legacy-{p}"))).expect("mkdir");
    }
    let dir = DataDir::open(tmp.path()).expect("open");
    let topic = dir.topic("legacy").expect("read").expect("topic");
    assert_eq!(
        (topic.partition_count(), topic.source, topic.id),
        (2, TopicSource::Broker, None)
    );
    let lock = dir.lock().expect("lock");
    let grown = dir
        .create_partitions(&lock, "legacy", 3, None)
        .expect("grow");
    let id = grown.id.expect("id assigned");
    for p in 0..3 {
        let found = read_partition_metadata(&tmp.path().join(format!("legacy-{p}"))).expect("read");
        assert_eq!(found, Some(id));
    }
    assert_eq!(
        dir.topic("legacy").expect("read").expect("topic").source,
        TopicSource::Kafkit
    );
    dir.delete_topic(&lock, "legacy").expect("delete");
    assert!(dir.topics().expect("topics").is_empty());
}

#[test]
fn classic_placement_matches_kafkas_vectors() {
    use kafkit::datadir::placement::{
        assign_replicas_to_brokers, rack_alternated_broker_list, BrokerInfo,
    };
    let Some(dir) = vectors() else { return };
    let text = fs::read_to_string(dir.join("cli/replica_placement_adminutils.json")).expect("read");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let racks = |v: &serde_json::Value| -> BTreeMap<i32, String> {
        v.as_object()
            .expect("racks")
            .iter()
            .map(|(k, r)| {
                (
                    k.parse().expect("id"),
                    r.as_str().expect("rack").to_string(),
                )
            })
            .collect()
    };
    for case in doc["rack_alternated_list_cases"].as_array().expect("cases") {
        let expected: Vec<i32> = serde_json::from_value(case["expected"].clone()).expect("list");
        assert_eq!(
            rack_alternated_broker_list(&racks(&case["broker_rack"])),
            expected
        );
    }
    let cases = doc["assignment_cases"].as_array().expect("cases");
    assert!(cases.len() >= 15);
    for case in cases {
        let brokers: Vec<BrokerInfo> = if case["rack_aware"] == true {
            racks(&case["broker_rack"])
                .into_iter()
                .map(|(id, rack)| BrokerInfo {
                    id,
                    rack: Some(rack),
                })
                .collect()
        } else {
            case["broker_list"]
                .as_array()
                .expect("brokers")
                .iter()
                .map(|b| BrokerInfo {
                    id: b.as_i64().expect("id") as i32,
                    rack: None,
                })
                .collect()
        };
        let int = |k: &str| case[k].as_i64().expect(k) as i32;
        let got = assign_replicas_to_brokers(
            &brokers,
            int("n_partitions"),
            int("replication_factor"),
            int("fixed_start_index"),
            int("start_partition_id"),
        )
        .expect("placement");
        let expected: BTreeMap<i32, Vec<i32>> = case["expected"]
            .as_object()
            .expect("expected")
            .iter()
            .map(|(p, r)| {
                (
                    p.parse().expect("p"),
                    serde_json::from_value(r.clone()).expect("r"),
                )
            })
            .collect();
        assert_eq!(got, expected, "{case}");
    }
    for case in doc["error_cases"].as_array().expect("errors") {
        let message = case["message"].as_str().expect("message");
        let err = if case.get("brokers").is_some() {
            let n = case["brokers"].as_i64().expect("n") as i32;
            let brokers: Vec<BrokerInfo> = (0..n).map(|id| BrokerInfo { id, rack: None }).collect();
            let int = |k: &str| case[k].as_i64().expect(k) as i32;
            assign_replicas_to_brokers(
                &brokers,
                int("n_partitions"),
                int("replication_factor"),
                0,
                -1,
            )
        } else {
            let brokers = vec![
                BrokerInfo {
                    id: 0,
                    rack: Some("r".into()),
                },
                BrokerInfo { id: 1, rack: None },
            ];
            assign_replicas_to_brokers(&brokers, 1, 1, 0, -1)
        }
        .expect_err(message);
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn the_library_refuses_to_create_the_kraft_metadata_topic() {
    let tmp = tempdir();
    let dir = DataDir::create(tmp.path().join("d")).expect("create");
    let lock = dir.lock().expect("lock");
    let refused = dir.create_topic(&lock, &new_topic("__cluster_metadata", 1));
    assert_eq!(
        refused.map(|t| t.name).map_err(|e| e.to_string()),
        Err("Creation of internal topic __cluster_metadata is prohibited.".to_string())
    );
    assert!(!tmp.path().join("d/__cluster_metadata-0").exists());
}
