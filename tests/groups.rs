//! Consumer groups: `__consumer_offsets` records against what real brokers wrote (and what
//! Kafka's dump tool decoded from them), groups replayed from a data directory, and `kafkit
//! consumer-groups` (kafka-consumer-groups.sh, `kafka-cli-surface.md` §6.2) on broker data and
//! on data directories written here with the library's encoder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};

use kafkit::assign::java::coordinator_partition;
use kafkit::datadir::{DataDir, TopicPartition};
use kafkit::group::protocol::{self, Assignment, Subscription, TopicPartitions};
use kafkit::group::{
    CoordinatorRecord, GroupMetadataValue, GroupState, Groups, MemberMetadata, OffsetCommitKey,
    OffsetCommitValue, Versioned,
};
use kafkit::log::{Log, LogCheckpoints, LogConfig, LogReader};
use kafkit::record::{BatchBuilder, Compression, EndTransactionMarker, TimestampType};

use crate::common::{consumer_offsets_vectors, copy_dir, fixtures, kafkit, tempdir};

/// The `__consumer_offsets` partitions of the fixtures that real brokers wrote.
const FIXTURE_PARTITIONS: [&str; 2] = [
    "mscaldas2012__kafka-connect-spooldir/__consumer_offsets-9",
    "DonaldY__kafka-2.7.1/__consumer_offsets-39",
];

/// Every record of a partition: offset, key, value.
type RawRecord = (i64, Vec<u8>, Option<Vec<u8>>);

fn records_of(dir: &Path) -> Vec<RawRecord> {
    let mut log = LogReader::open(dir).expect("open");
    let mut out = Vec::new();
    for base in log.segment_base_offsets().to_vec() {
        let mut reader = log.reader(base, 0).expect("reader");
        while let Some((_, batch)) = reader.next_batch().expect("batch") {
            for record in batch.records().expect("records") {
                out.push((record.offset, record.key.expect("key"), record.value));
            }
        }
    }
    out
}

/// What Kafka's dump tool printed for each record of `partition` with `--offsets-decoder`:
/// offset → (key JSON, payload JSON or `None` for `<DELETE>`).
fn kafka_decoded(fixtures: &Path, partition: &str) -> BTreeMap<i64, (Value, Option<Value>)> {
    let dir = fixtures.join("expected-dump").join(partition);
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("golden dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !name.ends_with(".log.offsets-decoder.txt") {
            continue;
        }
        for line in std::fs::read_to_string(&path).expect("golden").lines() {
            let Some(rest) = line.strip_prefix("| offset: ") else {
                continue;
            };
            let offset: i64 = rest
                .split(' ')
                .next()
                .and_then(|o| o.parse().ok())
                .expect("offset");
            let (_, key_and_payload) = rest.split_once(" key: ").expect("key");
            let (key, payload) = key_and_payload.split_once(" payload: ").expect("payload");
            let payload =
                (payload != "<DELETE>").then(|| serde_json::from_str(payload).expect("json"));
            out.insert(
                offset,
                (serde_json::from_str(key).expect("key json"), payload),
            );
        }
    }
    out
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn topic_partitions_json(items: &[TopicPartitions]) -> Value {
    items
        .iter()
        .map(|t| json!({"topic": t.topic, "partitions": t.partitions}))
        .collect()
}

/// A decoded subscription as Kafka's JSON converter writes it at its version.
fn subscription_json(s: &Versioned<Subscription>) -> Value {
    let m = &s.message;
    let mut v = json!({"topics": m.topics, "userData": m.user_data.as_deref().map(b64)});
    if s.version >= 1 {
        v["ownedPartitions"] = topic_partitions_json(&m.owned_partitions);
    }
    if s.version >= 2 {
        v["generationId"] = json!(m.generation_id);
    }
    if s.version >= 3 {
        v["rackId"] = json!(m.rack_id);
    }
    v
}

fn assignment_json(a: &Assignment) -> Value {
    json!({
        "assignedPartitions": topic_partitions_json(&a.assigned_partitions),
        "userData": a.user_data.as_deref().map(b64),
    })
}

/// kafkit's typed record, in the JSON Kafka's `--offsets-decoder` prints (key, payload).
fn kafka_json(record: &CoordinatorRecord) -> (Value, Option<Value>) {
    match record {
        CoordinatorRecord::OffsetCommit { key, value } => {
            let k = &key.message;
            let key = json!({"type": key.version.to_string(), "data": {"group": k.group, "topic": k.topic, "partition": k.partition}});
            let value = value.as_ref().map(|v| {
                let m = &v.message;
                let mut data = json!({"offset": m.offset});
                if v.version >= 3 {
                    data["leaderEpoch"] = json!(m.leader_epoch);
                }
                data["metadata"] = json!(m.metadata);
                data["commitTimestamp"] = json!(m.commit_timestamp);
                if v.version == 1 {
                    data["expireTimestamp"] = json!(m.expire_timestamp);
                }
                json!({"version": v.version.to_string(), "data": data})
            });
            (key, value)
        }
        CoordinatorRecord::GroupMetadata { key, value } => {
            let key = json!({"type": "2", "data": {"group": key.message.group}});
            let value = value.as_ref().map(|v| {
                let m = &v.message;
                let members: Vec<Value> = m
                    .members
                    .iter()
                    .map(|member| {
                        let mut j = json!({"memberId": member.member_id});
                        if v.version >= 3 {
                            j["groupInstanceId"] = json!(member.group_instance_id);
                        }
                        j["clientId"] = json!(member.client_id);
                        j["clientHost"] = json!(member.client_host);
                        if v.version >= 1 {
                            j["rebalanceTimeout"] = json!(member.rebalance_timeout);
                        }
                        j["sessionTimeout"] = json!(member.session_timeout);
                        let sub = member.decode_subscription().expect("subscription");
                        j["subscription"] = subscription_json(&sub);
                        j["assignment"] =
                            assignment_json(&member.decode_assignment().expect("assignment"));
                        j
                    })
                    .collect();
                let mut data = json!({
                    "protocolType": m.protocol_type,
                    "generation": m.generation,
                    "protocol": m.protocol,
                    "leader": m.leader,
                });
                if v.version >= 2 {
                    data["currentStateTimestamp"] = json!(m.current_state_timestamp);
                }
                data["members"] = Value::Array(members);
                json!({"version": v.version.to_string(), "data": data})
            });
            (key, value)
        }
        CoordinatorRecord::Other { record_type } => panic!("record type {record_type}"),
    }
}

/// Every OffsetCommit and GroupMetadata record real brokers wrote: kafkit reads the values
/// Kafka's own decoder printed for it, and writes those values back as the broker's bytes, key
/// and value, members' subscription and assignment bytes included.
#[test]
fn the_encoder_reproduces_every_record_brokers_wrote_from_its_decoded_values() {
    let Some(fixtures) = fixtures() else { return };
    let mut checked = 0;
    let mut members = 0;
    for partition in FIXTURE_PARTITIONS {
        let decoded_by_kafka = kafka_decoded(&fixtures, partition);
        let records = records_of(&fixtures.join(partition));
        assert_eq!(records.len(), decoded_by_kafka.len(), "{partition}");
        for (offset, key, value) in records {
            let record = CoordinatorRecord::decode(&key, value.as_deref())
                .unwrap_or_else(|e| panic!("{partition} offset {offset}: {e}"));
            assert_eq!(
                kafka_json(&record),
                decoded_by_kafka[&offset],
                "{partition} offset {offset}: kafkit's values are not Kafka's"
            );
            assert_eq!(
                record.encode().expect("encode"),
                (key, value),
                "{partition} offset {offset}: the encoder's bytes are not the broker's"
            );
            if let CoordinatorRecord::GroupMetadata { value: Some(v), .. } = &record {
                for m in &v.message.members {
                    let sub = protocol::decode::<Subscription>(&m.subscription).expect("sub");
                    assert_eq!(sub.encode().expect("encode"), m.subscription);
                    let asg = protocol::decode::<Assignment>(&m.assignment).expect("asg");
                    assert_eq!(asg.encode().expect("encode"), m.assignment);
                    members += 1;
                }
            }
            checked += 1;
        }
    }
    // 46 records of the Kafka 2.2 broker (offset commits, value v3; group metadata, v2, two
    // of them with a member) and 5 of the Kafka 2.7.1 one (a value v3 of each kind, tombstones).
    assert_eq!((checked, members), (51, 2));
}

/// The spec's encodings of offset commits (every key and value version) and group metadata
/// (values 3 and 4, an Empty group, tombstones) read and write back byte for byte.
#[test]
fn the_spec_vectors_read_and_write_back() {
    let Some(cases) = consumer_offsets_vectors() else {
        return;
    };
    let mut checked = 0;
    for (case, key, value) in cases {
        let record = CoordinatorRecord::decode(&key, value.as_deref()).expect("decode");
        assert_eq!(record.encode().expect("encode"), (key, value), "{case}");
        if let Some(fields) = case.get("fields") {
            let (kafka_key, kafka_value) = match &record {
                CoordinatorRecord::OffsetCommit { key, value } => {
                    let v = &value.as_ref().expect("value").message;
                    assert_eq!(fields["offset"], json!(v.offset), "{case}");
                    assert_eq!(
                        fields["commitTimestamp"],
                        json!(v.commit_timestamp),
                        "{case}"
                    );
                    (key.message.group.clone(), v.metadata.clone())
                }
                CoordinatorRecord::GroupMetadata { key, value } => {
                    let v = &value.as_ref().expect("value").message;
                    assert_eq!(fields["generation"], json!(v.generation), "{case}");
                    assert_eq!(
                        fields["members"].as_array().map(Vec::len),
                        Some(v.members.len())
                    );
                    (key.message.group.clone(), v.protocol_type.clone())
                }
                CoordinatorRecord::Other { .. } => panic!("{case}"),
            };
            assert_eq!(fields["group"], json!(kafka_key), "{case}");
            assert!(
                fields["metadata"] == json!(kafka_value)
                    || fields["protocolType"] == json!(kafka_value),
                "{case}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

/// The groups of the broker fixtures, as the dump tool's decoding of the same records says
/// they are: the latest record of each key, tombstones deleting.
#[test]
fn groups_replayed_from_the_brokers_fixtures() {
    let Some(fixtures) = fixtures() else { return };
    // Kafka 2.7.1: both groups were deleted (their offsets, then their metadata).
    let groups = Groups::load(&DataDir::open(fixtures.join("DonaldY__kafka-2.7.1")).expect("open"))
        .expect("load");
    assert!(groups.is_empty(), "{groups:?}");

    let partition = FIXTURE_PARTITIONS[0];
    let groups = Groups::load(
        &DataDir::open(fixtures.join("mscaldas2012__kafka-connect-spooldir")).expect("open"),
    )
    .expect("load");
    assert_eq!(groups.len(), 1);
    let group = groups
        .get("_confluent-controlcenter-5-1-2-1")
        .expect("group");
    // Its last metadata (offset 45): generation 4, no members.
    assert_eq!(
        (
            group.state,
            group.generation,
            group.protocol_type.as_str(),
            group.partition
        ),
        (GroupState::Empty, 4, "consumer", 9)
    );
    assert_eq!(
        (&group.protocol, &group.leader, group.members.len()),
        (&None, &None, 0)
    );
    assert_eq!(group.current_state_timestamp, Some(1558748718123));
    // The latest commit of each partition, from Kafka's decoding.
    let mut expected = BTreeMap::new();
    for (offset, (key, payload)) in kafka_decoded(&fixtures, partition) {
        if key["type"] != "1" {
            continue;
        }
        let tp = TopicPartition::new(
            key["data"]["topic"].as_str().expect("topic"),
            key["data"]["partition"].as_i64().expect("partition") as i32,
        );
        match payload {
            Some(p) => expected.insert(
                tp,
                (
                    p["data"]["offset"].as_i64().expect("offset"),
                    p["data"]["commitTimestamp"].as_i64().expect("ts"),
                    offset,
                ),
            ),
            None => expected.remove(&tp),
        };
    }
    let found: BTreeMap<_, _> = group
        .offsets
        .iter()
        .map(|(tp, c)| (tp.clone(), (c.offset, c.commit_timestamp, c.record_offset)))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(found.len(), 17);
}

/// `--describe` of the broker fixtures: Kafka's format for the group the records describe.
/// Only `..-monitoring-trigger-event-rekey-0` of its partitions has a log in the directory (22
/// records), so it alone has a log end and lag.
#[test]
fn describe_the_brokers_fixtures() {
    let Some(fixtures) = fixtures() else { return };
    let dir = tempdir();
    copy_dir(
        &fixtures.join("mscaldas2012__kafka-connect-spooldir"),
        dir.path(),
    );
    let g = "_confluent-controlcenter-5-1-2-1";
    let run = kafkit(dir.path(), &["consumer-groups", "--describe", "--group", g]);
    let header = "GROUP                            TOPIC                                                             PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID";
    let row = |topic: &str, partition: i32, offset: i64, end: &str, lag: &str| {
        format!(
            "{g} {topic:<65} {partition:<10} {offset:<15} {end:<15} {lag:<15} -               -               -"
        )
    };
    let mut expected = vec![String::new(), header.to_string()];
    for topic in [
        "actual-group-consumption-rekey",
        "expected-group-consumption-rekey",
        "monitoring-message-rekey",
    ] {
        expected.push(row(&format!("{g}-{topic}"), 0, 11, "-", "-"));
    }
    expected.push(row(
        &format!("{g}-monitoring-trigger-event-rekey"),
        0,
        22,
        "22",
        "0",
    ));
    for p in 0..12 {
        expected.push(row("_confluent-metrics", p, 0, "-", "-"));
    }
    expected.push(row("_confluent-monitoring", 0, 10, "-", "-"));
    assert_eq!(run.ok(), expected.join("\n") + "\n");
    assert_eq!(
        run.stderr,
        format!("\nConsumer group '{g}' has no active members.\n")
    );

    let run = kafkit(
        dir.path(),
        &["consumer-groups", "--describe", "--group", g, "--state"],
    );
    assert_eq!(
        run.ok(),
        format!("\nGROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS\n{g} localhost:9092  (0)       -                    Empty           0\n")
    );
    let run = kafkit(dir.path(), &["consumer-groups", "--list"]);
    assert_eq!(run.ok(), format!("{g}\n"));

    // Kafka 2.7.1's groups were deleted.
    let dir = tempdir();
    copy_dir(&fixtures.join("DonaldY__kafka-2.7.1"), dir.path());
    assert_eq!(kafkit(dir.path(), &["consumer-groups", "--list"]).ok(), "");
    let run = kafkit(
        dir.path(),
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "console-consumer-65070",
        ],
    );
    assert_eq!(
        (run.ok(), run.stderr.as_str()),
        (
            "\nError: Consumer group 'console-consumer-65070' does not exist.\n",
            ""
        )
    );
}

/// A record's key and value (`None`: null).
pub type KeyValue = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Writes records into a partition directory of `root` through the library's log, as one
/// batch (transactional for `producer`), then a COMMIT or ABORT marker when `end` says so.
pub fn append(
    root: &Path,
    partition_dir: &str,
    records: &[KeyValue],
    producer: Option<(i64, Option<bool>)>,
) {
    let dir = root.join(partition_dir);
    let mut log =
        Log::open(&dir, LogConfig::default(), LogCheckpoints::default(), 0).expect("open");
    let mut batch = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    if let Some((id, _)) = producer {
        batch = batch
            .producer_id(id)
            .producer_epoch(0)
            .base_sequence(0)
            .transactional(true);
    }
    for (key, value) in records {
        batch.append(1_700_000_000_000, key.as_deref(), value.as_deref(), &[]);
    }
    log.append(&batch.build().expect("build"), 0)
        .expect("append");
    if let Some((id, Some(commit))) = producer {
        let marker = if commit {
            EndTransactionMarker::commit(0)
        } else {
            EndTransactionMarker::abort(0)
        };
        let bytes = marker
            .build_batch(0, 1_700_000_000_001, id, 0, 0)
            .expect("marker");
        log.append(&bytes, 0).expect("append marker");
    }
    log.close().expect("close");
}

/// Writes group records into the group's coordinator partition of `root`.
pub fn commit(
    root: &Path,
    group: &str,
    records: &[CoordinatorRecord],
    producer: Option<(i64, Option<bool>)>,
) {
    let partition = coordinator_partition(group, 50);
    let encoded: Vec<_> = records
        .iter()
        .map(|r| {
            let (k, v) = r.encode().expect("encode");
            (Some(k), v)
        })
        .collect();
    append(
        root,
        &format!("__consumer_offsets-{partition}"),
        &encoded,
        producer,
    );
}

fn offset(group: &str, topic: &str, partition: i32, offset: i64) -> CoordinatorRecord {
    CoordinatorRecord::offset_commit(
        OffsetCommitKey {
            group: group.into(),
            topic: topic.into(),
            partition,
        },
        OffsetCommitValue::new(offset, 1_700_000_000_000),
    )
}

/// A consumer member assigned `partitions` of its topics.
fn member(
    id: &str,
    instance: Option<&str>,
    host: &str,
    partitions: &[(&str, &[i32])],
) -> MemberMetadata {
    let topics: Vec<String> = partitions.iter().map(|(t, _)| t.to_string()).collect();
    let subscription = Versioned::new(
        3,
        Subscription {
            topics,
            ..Subscription::default()
        },
    );
    let assignment = Versioned::new(
        3,
        Assignment {
            assigned_partitions: partitions
                .iter()
                .map(|(t, ps)| TopicPartitions {
                    topic: t.to_string(),
                    partitions: ps.to_vec(),
                })
                .collect(),
            user_data: None,
        },
    );
    let client = id.rsplit_once('-').map_or(id, |(c, _)| c);
    MemberMetadata {
        member_id: id.into(),
        group_instance_id: instance.map(Into::into),
        client_id: client.into(),
        client_host: host.into(),
        rebalance_timeout: 300_000,
        session_timeout: 45_000,
        subscription: subscription.encode().expect("sub"),
        assignment: assignment.encode().expect("asg"),
        unknown_tagged_fields: Vec::new(),
    }
}

fn group_value(
    protocol_type: &str,
    generation: i32,
    protocol: Option<&str>,
    members: Vec<MemberMetadata>,
) -> GroupMetadataValue {
    GroupMetadataValue {
        protocol_type: protocol_type.into(),
        generation,
        protocol: protocol.map(Into::into),
        leader: members.first().map(|m| m.member_id.clone()),
        current_state_timestamp: 1_700_000_000_000,
        members,
        unknown_tagged_fields: Vec::new(),
    }
}

/// A data directory with topics `orders` (log ends 10, 7, 0) and `payments` (5, 5), and groups:
/// `billing` (Stable, range, two members), `static-app` (Stable, one static member), `audit`
/// (Empty), `simple` (only offsets, committed in a transaction; another transaction aborted),
/// `gone` (deleted) and `connect-cluster` (a Connect group, not a consumer group).
pub fn groups_data_dir() -> tempfile::TempDir {
    let dir = tempdir();
    let root = dir.path();
    for (topic, ends) in [("orders", &[10, 7, 0][..]), ("payments", &[5, 5][..])] {
        for (p, &end) in ends.iter().enumerate() {
            let records: Vec<_> = (0..end)
                .map(|i| (None, Some(format!("{topic}-{i}").into_bytes())))
                .collect();
            if records.is_empty() {
                Log::open(
                    &root.join(format!("{topic}-{p}")),
                    LogConfig::default(),
                    LogCheckpoints::default(),
                    0,
                )
                .expect("open")
                .close()
                .expect("close");
            } else {
                append(root, &format!("{topic}-{p}"), &records, None);
            }
        }
    }
    let billing = group_value(
        "consumer",
        3,
        Some("range"),
        vec![
            member(
                "consumer-billing-1-9d0c",
                None,
                "/10.0.0.1",
                &[("orders", &[0, 1])],
            ),
            member(
                "consumer-billing-2-41ab",
                None,
                "/10.0.0.2",
                &[("orders", &[2]), ("payments", &[1, 0])],
            ),
        ],
    );
    commit(
        root,
        "billing",
        &[
            offset("billing", "orders", 0, 4),
            offset("billing", "orders", 0, 8),
            offset("billing", "orders", 1, 7),
            offset("billing", "payments", 0, 5),
            offset("billing", "old-topic", 0, 42),
            CoordinatorRecord::group_metadata("billing", billing),
        ],
        None,
    );
    let static_app = group_value(
        "consumer",
        1,
        Some("cooperative-sticky"),
        vec![member(
            "app-7f3e",
            Some("app-host-1"),
            "/192.168.1.20",
            &[("payments", &[0, 1])],
        )],
    );
    commit(
        root,
        "static-app",
        &[CoordinatorRecord::group_metadata("static-app", static_app)],
        None,
    );
    commit(
        root,
        "audit",
        &[
            offset("audit", "orders", 0, 3),
            offset("audit", "orders", 1, 1),
            CoordinatorRecord::group_metadata(
                "audit",
                group_value("consumer", 5, None, Vec::new()),
            ),
        ],
        None,
    );
    commit(
        root,
        "simple",
        &[offset("simple", "payments", 1, 2)],
        Some((1000, Some(true))),
    );
    commit(
        root,
        "simple",
        &[offset("simple", "payments", 0, 4)],
        Some((1001, Some(false))),
    );
    commit(
        root,
        "gone",
        &[
            offset("gone", "orders", 0, 1),
            CoordinatorRecord::group_metadata("gone", group_value("consumer", 1, None, Vec::new())),
            CoordinatorRecord::offset_tombstone(OffsetCommitKey {
                group: "gone".into(),
                topic: "orders".into(),
                partition: 0,
            }),
            CoordinatorRecord::group_tombstone("gone"),
        ],
        None,
    );
    let mut worker = member("connect-1-aa", None, "/10.0.0.9", &[]);
    worker.subscription = b"connect's own bytes".to_vec();
    worker.assignment = b"not the consumer protocol".to_vec();
    commit(
        root,
        "connect-cluster",
        &[CoordinatorRecord::group_metadata(
            "connect-cluster",
            group_value("connect", 2, Some("sessioned"), vec![worker]),
        )],
        None,
    );
    dir
}

#[test]
fn list_groups_with_their_type_and_state() {
    let dir = groups_data_dir();
    let list = |args: &[&str]| {
        let mut all = vec!["consumer-groups", "--list"];
        all.extend_from_slice(args);
        kafkit(dir.path(), &all).ok().to_string()
    };
    assert_eq!(list(&[]), "audit\nbilling\nsimple\nstatic-app\n");
    assert_eq!(
        list(&["--state"]),
        "GROUP                     STATE               \n\
         audit                     Empty               \n\
         billing                   Stable              \n\
         simple                    Empty               \n\
         static-app                Stable              \n"
    );
    assert_eq!(
        list(&["--state", "stable"]),
        "GROUP                     STATE               \n\
         billing                   Stable              \n\
         static-app                Stable              \n"
    );
    assert_eq!(
        list(&["--type", "--state", "Empty,dead"]),
        "GROUP                     TYPE                 STATE               \n\
         audit                     Classic              Empty               \n\
         simple                    Classic              Empty               \n"
    );
    assert_eq!(
        list(&["--type", "consumer"]),
        "GROUP                     TYPE                \n"
    );
}

#[test]
fn describe_offsets_members_and_state() {
    let dir = groups_data_dir();
    let describe = |args: &[&str]| {
        let mut all = vec!["consumer-groups", "--describe"];
        all.extend_from_slice(args);
        kafkit(dir.path(), &all)
    };
    // The member with more partitions first; orders-2 has no commit; old-topic-0 has no owner
    // and no log.
    let run = describe(&["--group", "billing"]);
    assert_eq!(
        run.ok(),
        "
GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID             HOST            CLIENT-ID
billing         orders          2          -               0               -               consumer-billing-2-41ab /10.0.0.2       consumer-billing-2
billing         payments        0          5               5               0               consumer-billing-2-41ab /10.0.0.2       consumer-billing-2
billing         payments        1          -               5               -               consumer-billing-2-41ab /10.0.0.2       consumer-billing-2
billing         orders          0          8               10              2               consumer-billing-1-9d0c /10.0.0.1       consumer-billing-1
billing         orders          1          7               7               0               consumer-billing-1-9d0c /10.0.0.1       consumer-billing-1
billing         old-topic       0          42              -               -               -                       -               -
"
    );
    assert_eq!(run.stderr, "");
    // An Empty group: its committed offsets, and Kafka's notice on stderr.
    let run = describe(&["--group", "audit", "--offsets"]);
    assert_eq!(
        run.ok(),
        "
GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID
audit           orders          0          3               10              7               -               -               -
audit           orders          1          1               7               6               -               -               -
"
    );
    assert_eq!(
        run.stderr,
        "\nConsumer group 'audit' has no active members.\n"
    );
    // The committed transaction counts, the aborted one does not.
    let run = describe(&["--group", "simple"]);
    assert!(run.ok().ends_with("\nsimple          payments        1          2               5               3               -               -               -\n"), "{}", run.stdout);
    assert_eq!(run.stdout.lines().count(), 3);

    let run = describe(&[
        "--group",
        "billing",
        "--group",
        "static-app",
        "--members",
        "--verbose",
    ]);
    assert_eq!(
        run.ok(),
        "
GROUP           CONSUMER-ID             HOST            CLIENT-ID          #PARTITIONS     ASSIGNMENT
billing         consumer-billing-1-9d0c /10.0.0.1       consumer-billing-1 2               orders(0,1)
billing         consumer-billing-2-41ab /10.0.0.2       consumer-billing-2 3               orders(2), payments(0,1)

GROUP           CONSUMER-ID     GROUP-INSTANCE-ID HOST            CLIENT-ID       #PARTITIONS     ASSIGNMENT
static-app      app-7f3e        app-host-1        /192.168.1.20   app             2               payments(0,1)
"
    );
    let run = describe(&["--group", "audit", "--members"]);
    assert_eq!(
        (run.ok(), run.stderr.as_str()),
        (
            "\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n",
            "\nConsumer group 'audit' has no active members.\n"
        )
    );

    let run = describe(&["--all-groups", "--state"]);
    assert_eq!(
        run.ok(),
        "
GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
audit                     localhost:9092  (0)       -                    Empty           0

GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
billing                   localhost:9092  (0)       range                Stable          2

GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
simple                    localhost:9092  (0)       -                    Empty           0

GROUP                     COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE           #MEMBERS
static-app                localhost:9092  (0)       cooperative-sticky   Stable          1
"
    );
    assert_eq!(
        run.stderr,
        "\nConsumer group 'audit' has no active members.\n\nConsumer group 'simple' has no active members.\n"
    );

    // A deleted group, and one never made.
    for group in ["gone", "never"] {
        let run = describe(&["--group", group]);
        assert_eq!(
            run.ok(),
            format!("\nError: Consumer group '{group}' does not exist.\n")
        );
        let run = describe(&["--group", group, "--members"]);
        assert_eq!(
            run.ok(),
            format!("\nError: Consumer group '{group}' does not exist.\n\nGROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     \n")
        );
    }
}

#[test]
fn describe_as_json() {
    let dir = groups_data_dir();
    let json = |args: &[&str]| {
        let all = [
            &["consumer-groups", "--describe"][..],
            args,
            &["--output", "json"],
        ]
        .concat();
        kafkit(dir.path(), &all).ok().to_string()
    };
    let lines: Vec<Value> = json(&["--group", "billing"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(
        lines[3],
        json!({"type": "offset", "group": "billing", "topic": "orders", "partition": 0,
               "current_offset": 8, "log_end_offset": 10, "lag": 2,
               "consumer_id": "consumer-billing-1-9d0c", "host": "/10.0.0.1", "client_id": "consumer-billing-1",
               "leader_epoch": null, "metadata": "", "commit_timestamp": 1_700_000_000_000_i64, "schema": 1})
    );
    assert_eq!(lines[5]["consumer_id"], Value::Null);
    assert_eq!(
        json(&["--group", "static-app", "--members"]),
        "{\"type\":\"member\",\"group\":\"static-app\",\"consumer_id\":\"app-7f3e\",\"group_instance_id\":\"app-host-1\",\"host\":\"/192.168.1.20\",\"client_id\":\"app\",\"partitions\":2,\"assignment\":[[\"payments\",0],[\"payments\",1]],\"session_timeout_ms\":45000,\"rebalance_timeout_ms\":300000,\"schema\":1}\n"
    );
    assert_eq!(
        json(&["--group", "nope", "--state"]),
        "{\"type\":\"not_found\",\"group\":\"nope\",\"message\":\"Consumer group 'nope' does not exist.\",\"schema\":1}\n"
    );
}

#[test]
fn a_connect_group_is_not_a_consumer_group() {
    let dir = groups_data_dir();
    let run = kafkit(
        dir.path(),
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "connect-cluster",
        ],
    );
    assert_eq!(
        run.fails(),
        "Error: Executing consumer group command failed due to GroupId connect-cluster is not a consumer group (connect).\n"
    );
    assert_eq!(run.stdout, "");
}

#[test]
fn usage_errors_in_kafkas_words() {
    let dir = tempdir();
    for (args, message) in [
        (&["--describe"][..], "Option [describe] takes one of these options: [group], [all-groups]"),
        (&["--describe", "--group", "g", "--members", "--state"], "Option [describe] takes at most one of these options: [members], [offsets], [state]"),
        (&["--describe", "--group", "g", "--state", "stable"], "Option [describe] does not take a value for [state]"),
        (&["--describe", "--group", "g", "--all-groups"], "Option \"[group]\" can't be used with option \"[all-groups]\""),
        (&["--list", "--group", "g"], "Option \"[group]\" can't be used with option \"[list]\""),
        (&["--list", "--members"], "Option(s) [members] are unavailable given other options on the command line"),
        (&["--describe", "--all-groups", "--type"], "Option(s) [type] are unavailable given other options on the command line"),
        (&[], "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets"),
        (&["--list", "--describe", "--all-groups"], "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets"),
        (&["--list", "--state", "stable,bored"], "Invalid state list 'stable,bored'. Valid states are: PreparingRebalance, CompletingRebalance, Stable, Dead, Empty, Assigning, Reconciling"),
        (&["--list", "--type", "share"], "Invalid types list 'share'. Valid types are: Classic, Consumer"),
    ] {
        let mut all = vec!["consumer-groups"];
        all.extend_from_slice(args);
        let run = kafkit(dir.path(), &all);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(
            run.stderr.starts_with(&format!("{message}\n\nUsage: kafkit consumer-groups")),
            "{args:?}: {}",
            run.stderr
        );
    }
    // No data directory.
    let run = kafkit(&dir.path().join("absent"), &["consumer-groups", "--list"]);
    assert!(run.fails().contains("does not exist"), "{}", run.stderr);
}

/// Bytes that are not a group record stop the run with an error naming the partition, the
/// record's offset, the part and the byte.
#[test]
fn a_damaged_record_is_named() {
    let dir = tempdir();
    // An offset commit whose value ends inside its metadata string.
    let key = CoordinatorRecord::offset_tombstone(OffsetCommitKey {
        group: "g".into(),
        topic: "t".into(),
        partition: 0,
    })
    .encode()
    .expect("encode")
    .0;
    let value = vec![0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 9, b'x'];
    append(
        dir.path(),
        "__consumer_offsets-3",
        &[(Some(key), Some(value))],
        None,
    );
    let run = kafkit(dir.path(), &["consumer-groups", "--list"]);
    let dir_name: PathBuf = dir.path().join("__consumer_offsets-3");
    assert_eq!(
        run.fails(),
        format!(
            "Error: Executing consumer group command failed due to {}: the record at offset 0: in the record's value: truncated metadata at byte 16: needs 9 bytes, 1 remain\n",
            dir_name.display()
        )
    );
    // A record without a key.
    let dir = tempdir();
    append(
        dir.path(),
        "__consumer_offsets-0",
        &[(None, Some(vec![0, 3]))],
        None,
    );
    let run = kafkit(
        dir.path(),
        &["consumer-groups", "--describe", "--all-groups"],
    );
    assert!(
        run.fails().contains("the record at offset 0 has no key"),
        "{}",
        run.stderr
    );
}

/// Records of the new consumer protocol are skipped with a note; the classic groups beside them
/// are shown.
#[test]
fn records_of_the_new_protocol_are_skipped_and_said_to_be() {
    let dir = tempdir();
    // ConsumerGroupMetadataKey (type 3) "new" and its value v0 (epoch 10), then a commit of "old".
    let mut key = vec![0, 3, 0, 3];
    key.extend_from_slice(b"new");
    let value = vec![0, 0, 0, 0, 0, 10, 0];
    let (commit_key, commit_value) = offset("old", "t", 0, 1).encode().expect("encode");
    append(
        dir.path(),
        "__consumer_offsets-0",
        &[(Some(key), Some(value)), (Some(commit_key), commit_value)],
        None,
    );
    let run = kafkit(dir.path(), &["consumer-groups", "--list"]);
    assert_eq!(run.ok(), "old\n");
    assert_eq!(
        run.stderr,
        "kafkit: skipped 1 record(s) of __consumer_offsets of the new consumer protocol (KIP-848) or of share groups, which kafkit does not read yet: their groups are not shown\n"
    );
}

/// The stdout, stderr and exit code of a run.
fn outcome(run: &crate::common::Run) -> (String, String, i32) {
    (run.stdout.clone(), run.stderr.clone(), run.code)
}

/// `--describe --group` reads the named groups from their own partitions
/// (`coordinator_partition(group, 50)`), where they are: what the other partitions hold, damage
/// and records kafkit does not read included, changes nothing, and without them it is the same.
/// `--list` and a group that is not in its partition still read every partition.
#[test]
fn describe_of_named_groups_reads_only_their_own_partitions() {
    let dir = groups_data_dir();
    let root = dir.path();
    let cases: [&[&str]; 4] = [
        &["--group", "billing"],
        &[
            "--group",
            "audit",
            "--group",
            "simple",
            "--members",
            "--verbose",
        ],
        &["--group", "static-app", "--state"],
        &["--group", "billing", "--offsets"],
    ];
    let describe_all = || -> Vec<_> {
        cases
            .iter()
            .map(|args| {
                let mut all = vec!["consumer-groups", "--describe"];
                all.extend_from_slice(args);
                outcome(&kafkit(root, &all))
            })
            .collect()
    };
    let before = describe_all();
    assert!(before.iter().all(|(_, _, code)| *code == 0), "{before:?}");
    let named = ["billing", "audit", "simple", "static-app"];
    let own: Vec<u32> = named.iter().map(|g| coordinator_partition(g, 50)).collect();
    let mut others = (0..50).filter(|p| !own.contains(p));
    let (unread_at, damaged_at) = (others.next().expect("free"), others.next().expect("free"));

    // A record of the new protocol (ConsumerGroupMetadataKey "new") in another partition: the
    // note is for `--list`, which reads it, not for describes that do not.
    let mut key = vec![0, 3, 0, 3];
    key.extend_from_slice(b"new");
    append(
        root,
        &format!("__consumer_offsets-{unread_at}"),
        &[(Some(key), Some(vec![0, 0, 0, 0, 0, 10, 0]))],
        None,
    );
    let list = kafkit(root, &["consumer-groups", "--list"]);
    assert!(
        list.stderr.contains("skipped 1 record(s)"),
        "{}",
        list.stderr
    );
    assert_eq!(describe_all(), before);

    // A record without a key in another partition: `--list` fails on it, the describes of
    // groups found in their own partitions do not read it; one of a group that is nowhere
    // reads every partition, and fails as before.
    append(
        root,
        &format!("__consumer_offsets-{damaged_at}"),
        &[(None, Some(vec![0, 3]))],
        None,
    );
    let no_key = "has no key";
    assert!(kafkit(root, &["consumer-groups", "--list"])
        .fails()
        .contains(no_key));
    assert_eq!(describe_all(), before);
    let nowhere = kafkit(root, &["consumer-groups", "--describe", "--group", "nope"]);
    assert!(nowhere.fails().contains(no_key), "{}", nowhere.stderr);
    let one_nowhere = kafkit(
        root,
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "billing",
            "--group",
            "nope",
        ],
    );
    assert!(
        one_nowhere.fails().contains(no_key),
        "{}",
        one_nowhere.stderr
    );

    // Without any other partition: the same.
    for p in 0..50 {
        if !own.contains(&p) {
            let _ = std::fs::remove_dir_all(root.join(format!("__consumer_offsets-{p}")));
        }
    }
    assert_eq!(describe_all(), before);

    // A torn tail of a group's own partition is warned about, as when every partition is read.
    let segment = root
        .join(format!("__consumer_offsets-{}", own[0]))
        .join("00000000000000000000.log");
    let mut bytes = std::fs::read(&segment).expect("segment");
    let torn_at = bytes.len();
    bytes.extend_from_slice(&3i64.to_be_bytes());
    bytes.extend_from_slice(&50i32.to_be_bytes());
    bytes.extend_from_slice(&0i32.to_be_bytes());
    bytes.push(7);
    bytes.resize(torn_at + 62, 0);
    std::fs::write(&segment, &bytes).expect("write");
    let run = kafkit(
        root,
        &["consumer-groups", "--describe", "--group", "billing"],
    );
    assert_eq!(run.ok(), before[0].0);
    let warning = format!(
        "WARN Found invalid messages in log segment {} at byte offset {torn_at}",
        segment.display()
    );
    assert!(run.stderr.contains(&warning), "{}", run.stderr);
}

/// A group whose records are not in its partition of 50 (a copy of a broker whose offsets
/// topic has another partition count) is found by reading every partition, whether its own
/// partition holds other groups or does not exist.
#[test]
fn a_group_outside_its_own_partition_is_found_among_all() {
    let dir = tempdir();
    let root = dir.path();
    let own = coordinator_partition("moved", 50);
    let elsewhere = (own + 1) % 50;
    let neighbour = (0..)
        .map(|i| format!("neighbour-{i}"))
        .find(|g| coordinator_partition(g, 50) == own)
        .expect("a group of the same partition");
    let records = |group: &str, partition: i32, offset_value: i64| -> Vec<KeyValue> {
        [
            offset(group, "t", partition, offset_value),
            CoordinatorRecord::group_metadata(
                group,
                group_value("consumer", 2, Some("range"), Vec::new()),
            ),
        ]
        .iter()
        .map(|r| {
            let (k, v) = r.encode().expect("encode");
            (Some(k), v)
        })
        .collect()
    };
    append(
        root,
        &format!("__consumer_offsets-{elsewhere}"),
        &records("moved", 0, 17),
        None,
    );
    let describe = || kafkit(root, &["consumer-groups", "--describe", "--group", "moved"]);
    let expected = "\nGROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID\n\
                    moved           t               0          17              -               -               -               -               -\n";
    // Its own partition does not exist.
    let run = describe();
    assert_eq!(run.ok(), expected);
    assert_eq!(
        run.stderr,
        "\nConsumer group 'moved' has no active members.\n"
    );
    // Its own partition holds another group.
    append(
        root,
        &format!("__consumer_offsets-{own}"),
        &records(&neighbour, 1, 5),
        None,
    );
    assert_eq!(outcome(&describe()), outcome(&run));
    let both = kafkit(
        root,
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "moved",
            "--group",
            &neighbour,
        ],
    );
    assert!(
        both.ok()
            .contains("\nmoved           t               0          17 "),
        "{}",
        both.stdout
    );
    assert!(
        both.stdout
            .contains(&format!("\n{neighbour:<15} t               1          5 ")),
        "{}",
        both.stdout
    );
}
