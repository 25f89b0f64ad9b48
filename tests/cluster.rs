//! The cluster's metadata image, `kafkit metadata`, `cluster what-if`, `cluster init` and
//! `topics --create` in a cluster: on the real KRaft snapshot of the fixtures, on clusters
//! `init` makes, and on images built record by record with hand-computed answers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kafkit::cluster::image::{MetadataImage, Partition};
use kafkit::cluster::init::append_records;
use kafkit::cluster::records::{
    resource_type, Endpoint, MetadataRecord, PartitionChange, PartitionRecord, RegisterBroker,
};
use kafkit::cluster::whatif::{what_if, Health, WhatIfError};
use kafkit::common::Uuid;
use kafkit::decode::{encode_metadata_record, metadata_record};
use kafkit::log::SegmentReader;
use serde_json::Value;

use crate::common::{fixtures, kafkit, tempdir};

const SNAPSHOT: &str = "8sylla__citypulse/__cluster_metadata-0";

fn fixture_dir() -> Option<PathBuf> {
    match fixtures() {
        Some(root) => Some(root.join(SNAPSHOT)),
        None => {
            crate::common::skip("the cluster image tests need ../shared/kafka-fixtures");
            None
        }
    }
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn the_real_snapshot_replays_into_kafkas_image() {
    let Some(dir) = fixture_dir() else { return };
    let image = MetadataImage::load(&dir).expect("replays");
    let p = &image.provenance;
    assert_eq!(p.end_offset, 14459);
    assert_eq!(p.records, 61);
    assert_eq!(p.skipped.get("ZkMigrationStateRecord"), Some(&1));
    assert!(p
        .snapshot
        .as_ref()
        .is_some_and(|s| s.ends_with("00000000000000014459-0000000001.checkpoint")));
    assert_eq!(image.features.get("metadata.version"), Some(&14));
    assert_eq!(image.brokers.len(), 1);
    let broker = &image.brokers[&1];
    assert_eq!(broker.epoch, 6);
    assert!(!broker.fenced && !broker.in_controlled_shutdown);
    assert_eq!(broker.rack, None);
    let listeners: Vec<(&str, &str, u16)> = broker
        .endpoints
        .iter()
        .map(|e| (e.name.as_str(), e.host.as_str(), e.port))
        .collect();
    assert_eq!(
        listeners,
        [
            ("EXTERNAL", "localhost", 29092),
            ("INTERNAL", "citypulse-kafka", 9092)
        ]
    );
    let names: Vec<&str> = image.topics.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["__consumer_offsets", "pollution-raw", "traffic-raw"]
    );
    let offsets = &image.topics["__consumer_offsets"];
    assert_eq!(offsets.id.to_string(), "MiVZFiljTpOAFj4f23YveQ");
    assert_eq!(offsets.partitions.len(), 50);
    for p in offsets.partitions.values() {
        assert_eq!(
            (p.leader, &p.replicas[..], &p.isr[..]),
            (1, &[1][..], &[1][..])
        );
        assert_eq!((p.leader_epoch, p.partition_epoch), (0, 0));
    }
    assert_eq!(
        image.topic_configs["__consumer_offsets"],
        BTreeMap::from([
            ("cleanup.policy".to_string(), "compact".to_string()),
            ("compression.type".to_string(), "producer".to_string()),
            ("segment.bytes".to_string(), "104857600".to_string()),
        ])
    );
    assert_eq!(
        image.topics["pollution-raw"].id.to_string(),
        "qZCOccKLSkSqFe_JSTk26A"
    );
}

#[test]
fn every_record_of_the_real_snapshot_encodes_back_to_its_bytes() {
    let Some(dir) = fixture_dir() else { return };
    let path = dir.join("00000000000000014459-0000000001.checkpoint");
    let mut reader = SegmentReader::open(&path, 0).expect("opens");
    let mut seen = 0;
    while let Some((_, batch)) = reader.next_batch().expect("a batch") {
        if batch.is_control() {
            continue;
        }
        for record in batch.records().expect("records") {
            let value = record.value.expect("a value");
            let (schema, version, data) = metadata_record(&value).expect("decodes");
            let again = encode_metadata_record(&schema.name, version, &data).expect("encodes");
            assert_eq!(again, value, "offset {}: {}", record.offset, schema.name);
            seen += 1;
        }
    }
    assert_eq!(seen, 61);
}

#[test]
fn metadata_lists_the_real_snapshot_as_kcat_does() {
    let Some(dir) = fixture_dir() else { return };
    let tmp = tempdir();
    let d = dir.display().to_string();
    let out = kafkit(tmp.path(), &["metadata", "--metadata-dir", &d])
        .ok()
        .to_string();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..6],
        [
            format!("Metadata for all topics (from broker -1: {d}):").as_str(),
            " 1 brokers:",
            "  broker 1 at localhost:29092",
            " 3 topics:",
            "  topic \"__consumer_offsets\" with 50 partitions:",
            "    partition 0, leader 1, replicas: 1, isrs: 1",
        ]
    );
    assert!(out.contains("  topic \"traffic-raw\" with 1 partitions:\n    partition 0, leader 1, replicas: 1, isrs: 1\n"));
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("    partition "))
            .count(),
        52
    );
    // Another listener.
    let internal = kafkit(
        tmp.path(),
        &["metadata", "--metadata-dir", &d, "--listener", "INTERNAL"],
    );
    assert!(internal
        .ok()
        .contains("  broker 1 at citypulse-kafka:9092\n"));
    let none = kafkit(
        tmp.path(),
        &["metadata", "--metadata-dir", &d, "--listener", "SSL"],
    );
    assert!(none.ok().contains(" 0 brokers:\n"));
    // JSON: the image, then features, brokers, topics with their partitions.
    let json = kafkit(
        tmp.path(),
        &["--output", "json", "metadata", "--metadata-dir", &d],
    );
    let events = json_lines(json.ok());
    assert_eq!(events[0]["type"], "image");
    assert_eq!(events[0]["end_offset"], 14459);
    assert_eq!(events[0]["records"], 61);
    let count = |t: &str| events.iter().filter(|e| e["type"] == t).count();
    assert_eq!(
        (
            count("feature"),
            count("broker"),
            count("topic"),
            count("partition")
        ),
        (1, 1, 3, 52)
    );
}

#[test]
fn what_if_the_real_clusters_only_broker_goes_down() {
    let Some(dir) = fixture_dir() else { return };
    let tmp = tempdir();
    let d = dir.display().to_string();
    let run = kafkit(
        tmp.path(),
        &[
            "--output",
            "json",
            "cluster",
            "what-if",
            "--metadata-dir",
            &d,
            "--down",
            "1",
        ],
    );
    let events = json_lines(run.ok());
    let summary = events.last().expect("a summary");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["partitions"], 52);
    assert_eq!(summary["affected"], 52);
    assert_eq!(summary["offline"], 52);
    assert_eq!(summary["under_min_isr"], 0);
    assert_eq!(summary["leaders_moved"], 0);
    let broker: Vec<&Value> = events.iter().filter(|e| e["type"] == "broker").collect();
    assert_eq!(broker.len(), 1);
    assert_eq!(
        (&broker[0]["leaders_before"], &broker[0]["leaders_after"]),
        (&Value::from(52), &Value::from(0))
    );
    // The last ISR member stays in the ISR (no ELR in this cluster), with no leader.
    let p = &events[0];
    assert_eq!(p["isr_after"], serde_json::json!([1]));
    assert_eq!(p["leader_after"], -1);
    assert_eq!(p["after"], "offline");
    // A broker the image does not have.
    let err = kafkit(
        tmp.path(),
        &["cluster", "what-if", "--metadata-dir", &d, "--down", "2"],
    );
    assert!(
        err.fails().contains("broker 2 is not registered"),
        "{}",
        err.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Images built record by record.

fn register(id: i32, rack: Option<&str>, fenced: bool) -> MetadataRecord {
    MetadataRecord::RegisterBroker(RegisterBroker {
        broker_id: id,
        incarnation_id: Uuid::random(),
        broker_epoch: i64::from(id) * 10,
        endpoints: vec![Endpoint {
            name: "PLAINTEXT".into(),
            host: "localhost".into(),
            port: 9090 + u16::try_from(id).unwrap(),
            security_protocol: 0,
        }],
        features: vec![],
        rack: rack.map(str::to_string),
        fenced,
        in_controlled_shutdown: false,
        log_dirs: vec![],
    })
}

fn partition(
    topic_id: Uuid,
    id: i32,
    replicas: &[i32],
    isr: &[i32],
    leader: i32,
) -> MetadataRecord {
    MetadataRecord::Partition(PartitionRecord {
        partition_id: id,
        topic_id,
        partition: Partition {
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            removing_replicas: vec![],
            adding_replicas: vec![],
            leader,
            leader_recovery_state: 0,
            leader_epoch: 0,
            partition_epoch: 0,
            elr: vec![],
            last_known_elr: vec![],
        },
        directories: vec![],
    })
}

fn topic_config(topic: &str, name: &str, value: &str) -> MetadataRecord {
    MetadataRecord::Config {
        resource_type: resource_type::TOPIC,
        resource_name: topic.into(),
        name: name.into(),
        value: Some(value.into()),
    }
}

/// Brokers 1-3 alive, 4 fenced; topics, each one partition:
/// * `safe`: replicas 1,2,3, ISR 1,2,3, leader 1, min.insync.replicas 2 (topic config);
/// * `lagging`: replicas 2,3, ISR 2 (3 behind), leader 2, unclean election on;
/// * `strict`: the same without unclean election;
/// * `pair`: replicas 2,3, ISR 2,3, leader 2, the cluster default min.insync.replicas (2);
/// * `stale`: replicas 1,4, ISR 1, leader 1 (4 fenced already).
fn built_image() -> MetadataImage {
    let mut image = MetadataImage::default();
    let mut records = vec![
        register(1, None, false),
        register(2, None, false),
        register(3, None, false),
        register(4, None, true),
        MetadataRecord::Config {
            resource_type: resource_type::BROKER,
            resource_name: String::new(),
            name: "min.insync.replicas".into(),
            value: Some("2".into()),
        },
    ];
    for (i, (name, replicas, isr, leader)) in [
        ("safe", &[1, 2, 3][..], &[1, 2, 3][..], 1),
        ("lagging", &[2, 3], &[2], 2),
        ("strict", &[2, 3], &[2], 2),
        ("pair", &[2, 3], &[2, 3], 2),
        ("stale", &[1, 4], &[1], 1),
    ]
    .into_iter()
    .enumerate()
    {
        let id = Uuid::from_halves(1, i64::try_from(i).unwrap() + 2);
        records.push(MetadataRecord::Topic {
            name: name.into(),
            topic_id: id,
        });
        records.push(partition(id, 0, replicas, isr, leader));
    }
    records.push(topic_config("safe", "min.insync.replicas", "2"));
    records.push(topic_config(
        "lagging",
        "unclean.leader.election.enable",
        "true",
    ));
    records.push(topic_config("lagging", "min.insync.replicas", "1"));
    records.push(topic_config("strict", "min.insync.replicas", "1"));
    records.push(topic_config("stale", "min.insync.replicas", "1"));
    for r in records {
        image.apply(r).expect("applies");
    }
    image
}

/// (leader after, ISR after, state after, unclean) of a topic's partition 0.
fn outcome(w: &kafkit::cluster::whatif::WhatIf, topic: &str) -> (i32, Vec<i32>, Health, bool) {
    let o = w
        .partitions
        .iter()
        .find(|o| o.topic == topic)
        .unwrap_or_else(|| panic!("{topic} is affected"));
    (o.leader_after, o.isr_after.clone(), o.after, o.unclean)
}

#[test]
fn what_if_follows_the_controllers_election_rules() {
    let image = built_image();
    // Broker 1 down: `safe` elects 2 (the first ISR replica alive) and keeps two in sync;
    // `stale` has no other ISR member: offline, its ISR kept at [1].
    let w = what_if(&image, &[1]).unwrap();
    assert_eq!(outcome(&w, "safe"), (2, vec![2, 3], Health::Online, false));
    assert_eq!(outcome(&w, "stale"), (-1, vec![1], Health::Offline, false));
    assert_eq!(w.partitions.len(), 2);
    assert_eq!((w.offline, w.under_min_isr, w.leaders_moved), (1, 0, 1));
    assert_eq!((w.leadership[&1].before, w.leadership[&1].after), (2, 0));
    assert_eq!((w.leadership[&2].before, w.leadership[&2].after), (3, 4));

    // Brokers 1 then 2: `safe` ends on 3 alone, under its min.insync.replicas of 2;
    // `lagging` elects 3 uncleanly (its ISR becomes [3]); `strict` goes offline with its ISR
    // kept; `pair` (cluster default 2) is led by 3 under min ISR.
    let w = what_if(&image, &[1, 2]).unwrap();
    assert_eq!(
        outcome(&w, "safe"),
        (3, vec![3], Health::UnderMinIsr, false)
    );
    assert_eq!(outcome(&w, "lagging"), (3, vec![3], Health::Online, true));
    assert_eq!(outcome(&w, "strict"), (-1, vec![2], Health::Offline, false));
    assert_eq!(
        outcome(&w, "pair"),
        (3, vec![3], Health::UnderMinIsr, false)
    );
    assert_eq!(outcome(&w, "stale"), (-1, vec![1], Health::Offline, false));
    assert_eq!(w.total_partitions, 5);
    assert_eq!((w.offline, w.under_min_isr), (2, 2));
    assert_eq!((w.leaders_moved, w.unclean), (3, 1));

    // The order counts: the last ISR member stays, whichever went last.
    let w = what_if(&image, &[2, 3]).unwrap();
    assert_eq!(outcome(&w, "pair"), (-1, vec![3], Health::Offline, false));
    let w = what_if(&image, &[3, 2]).unwrap();
    assert_eq!(outcome(&w, "pair"), (-1, vec![2], Health::Offline, false));

    // Refusals.
    assert_eq!(what_if(&image, &[9]), Err(WhatIfError::UnknownBroker(9)));
    assert_eq!(what_if(&image, &[1, 1]), Err(WhatIfError::Duplicate(1)));
    assert_eq!(what_if(&image, &[]), Err(WhatIfError::NoBroker));
}

#[test]
fn what_if_with_eligible_leader_replicas() {
    let mut image = built_image();
    image
        .apply(MetadataRecord::FeatureLevel {
            name: "eligible.leader.replicas.version".into(),
            level: 1,
        })
        .unwrap();
    // `safe` (min ISR 2): after 1, ISR [2,3] is enough and the ELR empty; after 2, ISR [3]
    // is below 2 and 2 goes to the ELR; after 3 the ISR is empty (allowed with ELR), both in
    // the ELR, no leader.
    let w = what_if(&image, &[1, 2]).unwrap();
    let safe = w.partitions.iter().find(|o| o.topic == "safe").unwrap();
    assert_eq!(
        (safe.leader_after, &safe.isr_after[..], &safe.elr_after[..]),
        (3, &[3][..], &[2][..])
    );
    let w = what_if(&image, &[1, 2, 3]).unwrap();
    let safe = w.partitions.iter().find(|o| o.topic == "safe").unwrap();
    assert_eq!(
        (safe.leader_after, &safe.isr_after[..], &safe.elr_after[..]),
        (-1, &[][..], &[2, 3][..])
    );
}

/// A `PartitionChangeRecord` of a leader (-2: unchanged) and an ISR (`None`: unchanged).
fn change(topic_id: Uuid, partition_id: i32, leader: i32, isr: Option<Vec<i32>>) -> MetadataRecord {
    MetadataRecord::PartitionChange(PartitionChange {
        isr,
        leader,
        ..PartitionChange::none(topic_id, partition_id)
    })
}

#[test]
fn partition_changes_encode_as_a_4_0_controller_writes_them() {
    let id: Uuid = "ZiEeMspHR6qWOi9U5BW_hg".parse().unwrap();
    let record = change(id, 3, 2, Some(vec![1, 2]));
    let bytes = record.encode().unwrap();
    // Frame version 1, PartitionChangeRecord (5) v1; partition 3, the topic id; then the
    // tagged fields in tag order: 0 (isr: a compact array of 2 ints, 9 bytes) and 1 (leader);
    // every other field is at its default and left out, as Kafka's writer leaves it out.
    let mut expected = vec![1, 5, 1, 0, 0, 0, 3];
    expected.extend_from_slice(&id.0);
    expected.extend_from_slice(&[2, 0, 9, 3, 0, 0, 0, 1, 0, 0, 0, 2, 1, 4, 0, 0, 0, 2]);
    assert_eq!(bytes, expected);
    assert_eq!(MetadataRecord::read(&bytes).unwrap(), record);
    // A reassignment's change carries the new replicas with their directories; one with ELR
    // fields is written as version 2.
    let dir: Uuid = "AAAAAAAAAAAAAAAAAAAAAQ".parse().unwrap();
    let moved = MetadataRecord::PartitionChange(PartitionChange {
        replicas: Some(vec![2, 3]),
        adding_replicas: Some(vec![3]),
        directories: Some(vec![dir, dir]),
        ..PartitionChange::none(id, 0)
    });
    let bytes = moved.encode().unwrap();
    assert_eq!(bytes[..3], [1, 5, 1]);
    assert_eq!(MetadataRecord::read(&bytes).unwrap(), moved);
    let elr = MetadataRecord::PartitionChange(PartitionChange {
        eligible_leader_replicas: Some(vec![1]),
        ..PartitionChange::none(id, 0)
    });
    let bytes = elr.encode().unwrap();
    assert_eq!(bytes[..3], [1, 5, 2]);
    assert_eq!(MetadataRecord::read(&bytes).unwrap(), elr);
}

#[test]
fn partition_changes_merge_as_kafkas_partition_registration() {
    let mut image = built_image();
    let id = image.topics["safe"].id;
    let change = |leader, isr| change(id, 0, leader, isr);
    // An ISR shrink alone: partition epoch only.
    image.apply(change(-2, Some(vec![1, 2]))).unwrap();
    let p = &image.topics["safe"].partitions[&0];
    assert_eq!(
        (p.leader, &p.isr[..], p.leader_epoch, p.partition_epoch),
        (1, &[1, 2][..], 0, 1)
    );
    // A new leader: both epochs.
    image.apply(change(2, None)).unwrap();
    let p = &image.topics["safe"].partitions[&0];
    assert_eq!(
        (p.leader, &p.isr[..], p.leader_epoch, p.partition_epoch),
        (2, &[1, 2][..], 1, 2)
    );
    // A change of a partition the image does not have is an error, not a silent skip.
    let bad = self::change(id, 7, 1, None);
    assert!(image.apply(bad).unwrap_err().to_string().contains("safe-7"));
    // Removing a topic drops its configs too.
    image
        .apply(MetadataRecord::RemoveTopic { topic_id: id })
        .unwrap();
    assert!(!image.topics.contains_key("safe") && !image.topic_configs.contains_key("safe"));
}

// ---------------------------------------------------------------------------------------------
// A cluster `init` makes.

fn init(tmp: &Path, args: &[&str]) -> PathBuf {
    let dir = tmp.join("cluster");
    let d = dir.display().to_string();
    let mut all = vec!["--data-dir", &d, "cluster", "init"];
    all.extend_from_slice(args);
    kafkit(tmp, &all).ok();
    dir
}

#[test]
fn init_lays_out_brokers_and_a_metadata_log_the_dump_tool_reads() {
    let tmp = tempdir();
    let dir = init(
        tmp.path(),
        &["--brokers", "3", "--rack", "1=a", "--rack", "3=c"],
    );
    let image = MetadataImage::load(&dir.join("__cluster_metadata-0")).expect("replays");
    assert_eq!(image.controller, Some(1));
    assert_eq!(image.features.get("metadata.version"), Some(&25));
    let mut cluster_ids = Vec::new();
    for (id, rack, port) in [(1, Some("a"), 9092), (2, None, 9093), (3, Some("c"), 9094)] {
        let b = &image.brokers[&id];
        assert_eq!(b.rack.as_deref(), rack);
        assert!(!b.fenced);
        assert_eq!(b.endpoints[0].port, port);
        let meta = kafkit::datadir::MetaProperties::read(
            &dir.join(format!("broker-{id}/meta.properties")),
        )
        .unwrap();
        assert_eq!((meta.version, meta.node_id), (1, id));
        assert_eq!(
            meta.directory_id.into_iter().collect::<Vec<_>>(),
            b.log_dirs
        );
        cluster_ids.push(meta.cluster_id.unwrap());
    }
    assert!(cluster_ids.windows(2).all(|w| w[0] == w[1]));
    // The broker epoch is the offset of the registration, as in Kafka.
    let log = dir.join("__cluster_metadata-0/00000000000000000000.log");
    let dump = kafkit(
        tmp.path(),
        &[
            "dump-log-segments",
            "--cluster-metadata-decoder",
            "--files",
            &log.display().to_string(),
        ],
    );
    let out = dump.ok();
    assert!(out.contains(r#"LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}"#), "{out}");
    assert!(out.contains(r#"payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":25}}"#), "{out}");
    for (offset, id, rack) in [(2, 1, r#""a""#), (3, 2, "null"), (4, 3, r#""c""#)] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("| offset: {offset} ")))
            .unwrap();
        assert!(line.contains(&format!(r#""brokerId":{id},"#)), "{line}");
        assert!(
            line.contains(&format!(r#""brokerEpoch":{offset},"#)),
            "{line}"
        );
        assert!(
            line.contains(&format!(r#""rack":{rack},"fenced":true"#)),
            "{line}"
        );
    }
    assert!(!out.contains("Error at"), "{out}");
    // A second init of the same directory is refused, and leaves it as it was.
    let again = kafkit(
        tmp.path(),
        &[
            "--data-dir",
            &dir.display().to_string(),
            "cluster",
            "init",
            "--brokers",
            "1",
        ],
    );
    assert!(again.fails().contains("is not empty"), "{}", again.stderr);
    assert!(dir.join("broker-3").is_dir());
    // Bad arguments.
    for (args, says) in [
        (&["--brokers", "0"][..], "--brokers must be between 1"),
        (
            &["--brokers", "2", "--rack", "3=x"],
            "--rack names broker 3",
        ),
        (&["--brokers", "2", "--rack", "x"], "--rack takes ID=RACK"),
    ] {
        let mut all = vec!["--data-dir", "other", "cluster", "init"];
        all.extend_from_slice(args);
        let run = kafkit(tmp.path(), &all);
        assert!(run.fails().contains(says), "{args:?}: {}", run.stderr);
    }
    assert!(!tmp.path().join("other").exists());
}

#[test]
fn topics_created_in_a_cluster_are_placed_and_recorded() {
    let tmp = tempdir();
    let dir = init(
        tmp.path(),
        &[
            "--brokers",
            "3",
            "--rack",
            "1=a",
            "--rack",
            "2=b",
            "--rack",
            "3=c",
        ],
    );
    let d = dir.display().to_string();
    let create = |args: &[&str]| {
        let mut all = vec!["--data-dir", d.as_str(), "topics", "--create"];
        all.extend_from_slice(args);
        kafkit(tmp.path(), &all)
    };
    assert_eq!(
        create(&[
            "--topic",
            "orders",
            "--partitions",
            "6",
            "--replication-factor",
            "3",
            "--config",
            "min.insync.replicas=2"
        ])
        .ok(),
        "Created topic orders.\n"
    );
    create(&["--topic", "pinned", "--replica-assignment", "2:3,3:1"]).ok();
    let exists = create(&["--topic", "pinned"]);
    assert!(
        exists.stdout.contains("Topic 'pinned' already exists."),
        "{}",
        exists.stdout
    );
    create(&["--topic", "pinned", "--if-not-exists"]).ok();
    let bad = create(&["--topic", "x", "--replica-assignment", "1:4"]);
    assert!(bad
        .stdout
        .contains("includes broker 4, but no such broker is registered"));
    let too_many = create(&["--topic", "x", "--replication-factor", "4"]);
    assert!(too_many.stdout.contains("only 3 broker(s) are registered"));

    let image = MetadataImage::load(&dir.join("__cluster_metadata-0")).unwrap();
    let orders = &image.topics["orders"];
    assert_eq!(orders.partitions.len(), 6);
    for (n, p) in &orders.partitions {
        // Rack-aware over three racks: every partition on all three brokers; the first
        // replica leads, the ISR is the replicas.
        let mut sorted = p.replicas.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [1, 2, 3]);
        assert_eq!((p.leader, &p.isr), (p.replicas[0], &p.replicas));
        for r in &p.replicas {
            let part = dir.join(format!("broker-{r}/orders-{n}/partition.metadata"));
            assert!(part.is_file(), "{}", part.display());
        }
    }
    // Leaders spread over the brokers as Kafka's placement spreads them.
    let mut leaders: Vec<i32> = orders.partitions.values().map(|p| p.leader).collect();
    leaders.sort_unstable();
    assert_eq!(leaders, [1, 1, 2, 2, 3, 3]);
    assert_eq!(
        image.topic_config("orders", "min.insync.replicas"),
        Some("2")
    );
    let pinned = &image.topics["pinned"];
    assert_eq!(pinned.partitions[&0].replicas, [2, 3]);
    assert_eq!(pinned.partitions[&1].replicas, [3, 1]);
    assert!(!dir.join("broker-1/pinned-0").exists());

    // What if 3 goes down: pinned-0 moves to 2, pinned-1 to 1; orders keeps two in sync.
    let run = kafkit(
        tmp.path(),
        &[
            "--data-dir",
            &d,
            "--output",
            "json",
            "cluster",
            "what-if",
            "--down",
            "3",
        ],
    );
    let events = json_lines(run.ok());
    let find = |topic: &str, n: i64| {
        events
            .iter()
            .find(|e| e["type"] == "partition" && e["topic"] == topic && e["partition"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(find("pinned", 1)["leader_after"], 1);
    assert_eq!(find("pinned", 0)["leader_after"], 2);
    let summary = events.last().unwrap();
    assert_eq!(
        (&summary["offline"], &summary["under_min_isr"]),
        (&Value::from(0), &Value::from(0))
    );
    assert_eq!(summary["affected"], 8);
}

#[test]
fn metadata_transactions_apply_at_their_end_and_aborted_ones_never() {
    let tmp = tempdir();
    let dir = tmp.path().join("__cluster_metadata-0");
    let topic = |name: &str, n: i64| MetadataRecord::Topic {
        name: name.into(),
        topic_id: Uuid::from_halves(7, n),
    };
    let batches = [
        vec![register(1, None, false)],
        vec![MetadataRecord::BeginTransaction, topic("kept", 1)],
        vec![MetadataRecord::EndTransaction],
        vec![
            MetadataRecord::BeginTransaction,
            topic("dropped", 2),
            MetadataRecord::AbortTransaction,
        ],
        vec![MetadataRecord::BeginTransaction, topic("unfinished", 3)],
    ];
    for batch in &batches {
        append_records(&dir, batch, 1_700_000_000_000).unwrap();
    }
    let image = MetadataImage::load(&dir).unwrap();
    let names: Vec<&str> = image.topics.keys().map(String::as_str).collect();
    assert_eq!(names, ["kept"]);
    assert_eq!(
        image.provenance.warnings.len(),
        1,
        "{:?}",
        image.provenance.warnings
    );
    assert!(image.provenance.warnings[0].contains("has not ended"));
    assert_eq!(image.provenance.end_offset, 9);
}

#[test]
fn damaged_or_missing_metadata_is_a_clear_error() {
    let tmp = tempdir();
    let dir = init(tmp.path(), &["--brokers", "2"]);
    let d = dir.display().to_string();
    let log = dir.join("__cluster_metadata-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&log).unwrap();
    // A byte inside the second batch's records: its CRC no longer holds.
    let at = bytes.len() - 10;
    bytes[at] ^= 0xff;
    std::fs::write(&log, &bytes).unwrap();
    let run = kafkit(tmp.path(), &["--data-dir", &d, "metadata"]);
    let err = run.fails();
    assert!(err.contains("00000000000000000000.log at byte 91"), "{err}");
    assert!(err.contains("CRC") || err.contains("crc"), "{err}");
    let missing = kafkit(tmp.path(), &["--data-dir", "nowhere", "metadata"]);
    assert!(
        missing.fails().contains("nowhere/__cluster_metadata-0"),
        "{}",
        missing.stderr
    );
    let empty = tmp.path().join("empty/__cluster_metadata-0");
    std::fs::create_dir_all(&empty).unwrap();
    let run = kafkit(
        tmp.path(),
        &["metadata", "--metadata-dir", &empty.display().to_string()],
    );
    assert!(
        run.fails().contains("holds no KRaft snapshot"),
        "{}",
        run.stderr
    );
    // A JSON run ends with the error object.
    let json = kafkit(
        tmp.path(),
        &["--output", "json", "--data-dir", &d, "metadata"],
    );
    json.fails();
    let last = json_lines(&json.stdout).pop().unwrap();
    assert_eq!(last["type"], "error");
}

#[test]
fn topics_describe_in_a_cluster_shows_the_images_leaders_and_isrs() {
    let tmp = tempdir();
    let dir = init(
        tmp.path(),
        &["--brokers", "3", "--config", "min.insync.replicas=2"],
    );
    let d = dir.display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["--data-dir", d.as_str(), "topics"];
        all.extend_from_slice(args);
        kafkit(tmp.path(), &all)
    };
    run(&[
        "--create",
        "--topic",
        "t",
        "--replica-assignment",
        "2:3,3:1",
    ])
    .ok();
    let image = MetadataImage::load(&dir.join("__cluster_metadata-0")).unwrap();
    let id = image.topics["t"].id;
    assert_eq!(run(&["--list"]).ok(), "t\n");
    let text = run(&["--describe", "--topic", "t"]).ok().to_string();
    assert_eq!(
        text,
        format!("Topic: t\tTopicId: {id}\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n\tTopic: t\tPartition: 0\tLeader: 2\tReplicas: 2,3\tIsr: 2,3\tElr: \tLastKnownElr: \n\tTopic: t\tPartition: 1\tLeader: 3\tReplicas: 3,1\tIsr: 3,1\tElr: \tLastKnownElr: \n")
    );
    // The cluster default min.insync.replicas (2) is what the filters compare with.
    assert_eq!(
        run(&["--describe", "--at-min-isr-partitions"])
            .ok()
            .lines()
            .count(),
        2
    );
    assert_eq!(run(&["--describe", "--under-min-isr-partitions"]).ok(), "");
    let json = run(&["--describe", "--output", "json"]);
    assert!(
        json.ok().contains(r#""source":"metadata""#),
        "{}",
        json.stdout
    );
    // produce, consume and get-offsets act on the cluster's leaders (tests/replication.rs);
    // nothing is written at the cluster's root.
    let offsets = kafkit(tmp.path(), &["--data-dir", d.as_str(), "get-offsets"]);
    assert_eq!(offsets.ok(), "t:0:0\nt:1:0\n");
    assert!(!dir.join("t-0").exists() && !dir.join(".kafkit-topics.json").exists());
    // --delete is the controller's (tests/ops.rs has the rest): the topic leaves the image.
    run(&["--delete", "--topic", "t"]).ok();
    assert_eq!(run(&["--list"]).ok(), "\n");
}

/// Kafka 4.0's `ClearElrRecord` (type 28): the dump tool's decoder reads it, and the image
/// clears the ELRs of the topic's partitions that have any (a new partition epoch), or of
/// every topic's when the name is empty.
#[test]
fn clear_elr_records_are_decoded_and_applied() {
    use kafkit::decode::jvalue::JValue;
    let data = JValue::Obj(vec![("topicName".into(), JValue::Str("safe".into()))]);
    let bytes = encode_metadata_record("ClearElrRecord", 0, &data).unwrap();
    assert_eq!(bytes, [1, 28, 0, 5, b's', b'a', b'f', b'e', 0]);
    assert_eq!(
        kafkit::decode::cluster_metadata(Some(&bytes), 3)
            .payload
            .as_deref(),
        Some(r#"{"type":"CLEAR_ELR_RECORD","version":0,"data":{"topicName":"safe"}}"#)
    );
    let mut image = built_image();
    let id = image.topics["safe"].id;
    let mut with_elr = change(id, 0, -2, Some(vec![3]));
    if let MetadataRecord::PartitionChange(c) = &mut with_elr {
        c.eligible_leader_replicas = Some(vec![1, 2]);
    }
    image.apply(with_elr).unwrap();
    assert_eq!(image.topics["safe"].partitions[&0].elr, [1, 2]);
    image.apply(MetadataRecord::read(&bytes).unwrap()).unwrap();
    let p = &image.topics["safe"].partitions[&0];
    assert_eq!((&p.elr[..], p.partition_epoch), (&[][..], 2));
    // A partition without ELR is left as it is.
    assert_eq!(image.topics["pair"].partitions[&0].partition_epoch, 0);
    let unknown = MetadataRecord::ClearElr {
        topic_name: "nope".into(),
    };
    assert!(image.apply(unknown).is_err());
}
