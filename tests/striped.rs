//! Kafka's KRaft `StripedReplicaPlacer` (#20): every case of
//! `vectors/cli/replica_placement_striped.json` replayed with Kafka's `MockRandom`, and
//! `topics --create` in a cluster placing with it.

use std::collections::BTreeMap;
use std::fs;

use kafkit::cluster::image::MetadataImage;
use kafkit::datadir::placement::striped::{
    place, shuffle, JavaRandom, MockRandom, RackList, UsableBroker,
};
use serde_json::Value;

use crate::common::{kafkit, tempdir, vectors};

fn doc() -> Option<Value> {
    let dir = vectors()?;
    let text = fs::read_to_string(dir.join("cli/replica_placement_striped.json")).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

fn brokers(v: &Value) -> Vec<UsableBroker> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| UsableBroker {
            id: b["id"].as_i64().unwrap() as i32,
            rack: b["rack"].as_str().map(str::to_string),
            fenced: b["fenced"].as_bool().unwrap(),
        })
        .collect()
}

fn lists(v: &Value) -> Vec<Vec<i32>> {
    serde_json::from_value(v.clone()).unwrap()
}

fn random(case: &Value) -> MockRandom {
    MockRandom::new(case["seed"].as_u64().unwrap())
}

#[test]
fn mock_random_draws_and_shuffles_as_the_vectors_say() {
    let Some(doc) = doc() else { return };
    let mock = &doc["mock_random"];
    let first = &mock["first_nextInt_outputs_seed17"];
    let mut r = MockRandom::default();
    for (bound, value) in first["bounds"]
        .as_array()
        .unwrap()
        .iter()
        .zip(first["values"].as_array().unwrap())
    {
        let bound = bound.as_i64().unwrap() as i32;
        assert_eq!(
            i64::from(r.next_int(bound)),
            value.as_i64().unwrap(),
            "{bound}"
        );
    }
    let mut list: Vec<i32> = (0..10).collect();
    shuffle(&mut list, &mut MockRandom::default());
    let expected: Vec<i32> =
        serde_json::from_value(mock["first_shuffle_seed17_of_0_to_9"].clone()).unwrap();
    assert_eq!(list, expected);
}

#[test]
fn striped_rack_lists_place_as_kafkas_tests_assert() {
    let Some(doc) = doc() else { return };
    let cases = doc["rack_list_sequences"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let mut r = random(case);
        let mut racks = RackList::new(&mut r, &brokers(&case["brokers_in_iteration_order"]));
        let got: Vec<Vec<i32>> = case["place_calls_replication_factor"]
            .as_array()
            .unwrap()
            .iter()
            .map(|rf| racks.place(rf.as_i64().unwrap() as i32).unwrap())
            .collect();
        assert_eq!(got, lists(&case["expected"]), "{}", case["source"]);
    }
}

#[test]
fn striped_placer_places_every_vector_case() {
    let Some(doc) = doc() else { return };
    let cases = doc["placer_cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let got = place(
            &mut random(case),
            &brokers(&case["brokers_in_iteration_order"]),
            case["num_partitions"].as_u64().unwrap() as usize,
            case["replication_factor"].as_i64().unwrap() as i32,
        )
        .unwrap();
        assert_eq!(got, lists(&case["expected"]), "{}", case["source"]);
    }
}

#[test]
fn striped_placer_spreads_pairs_as_kafkas_even_distribution_test() {
    let Some(doc) = doc() else { return };
    let case = &doc["even_distribution_case"];
    let got = place(
        &mut random(case),
        &brokers(&case["brokers_in_iteration_order"]),
        case["num_partitions"].as_u64().unwrap() as usize,
        case["replication_factor"].as_i64().unwrap() as i32,
    )
    .unwrap();
    assert_eq!(got.len(), 200);
    assert_eq!(got[..12], lists(&case["first_12_partitions"])[..]);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for replicas in &got {
        *counts
            .entry(format!("{},{}", replicas[0], replicas[1]))
            .or_default() += 1;
    }
    let expected: BTreeMap<String, u64> =
        serde_json::from_value(case["expected_pair_counts"].clone()).unwrap();
    assert_eq!(counts, expected);
}

#[test]
fn striped_placer_refuses_with_kafkas_messages_in_kafkas_order() {
    let Some(doc) = doc() else { return };
    let unfenced = |ids: &[i32]| -> Vec<UsableBroker> {
        ids.iter()
            .map(|&id| UsableBroker {
                id,
                rack: None,
                fenced: false,
            })
            .collect()
    };
    let message = |brokers: &[UsableBroker], rf: i32| {
        place(&mut MockRandom::default(), brokers, 1, rf)
            .unwrap_err()
            .to_string()
    };
    let cases = doc["error_cases"].as_array().unwrap();
    for case in cases {
        let Some(expected) = case["message"].as_str() else {
            continue;
        };
        let got = if case["all_fenced"].as_bool() == Some(true) {
            let fenced: Vec<UsableBroker> = unfenced(&[1, 2])
                .into_iter()
                .map(|b| UsableBroker { fenced: true, ..b })
                .collect();
            message(&fenced, 1)
        } else {
            let n = case["brokers"].as_i64().unwrap_or(3) as i32;
            let ids: Vec<i32> = (0..n).collect();
            message(
                &unfenced(&ids),
                case["replication_factor"].as_i64().unwrap() as i32,
            )
        };
        assert_eq!(got, expected);
    }
    // place(): non-positive, then all fenced, then too few; RackList.place(): too few before
    // all fenced.
    let fenced = vec![UsableBroker {
        id: 1,
        rack: None,
        fenced: true,
    }];
    assert_eq!(
        message(&fenced, 0),
        "Invalid replication factor 0: the replication factor must be positive."
    );
    assert_eq!(message(&fenced, 2), "All brokers are currently fenced.");
    let mut r = MockRandom::default();
    assert!(RackList::new(&mut r, &fenced)
        .place(2)
        .unwrap_err()
        .to_string()
        .starts_with("The target replication factor of 2 cannot be reached"));
}

/// Fenced brokers are only followers, however many partitions are placed.
#[test]
fn fenced_brokers_never_lead() {
    let brokers: Vec<UsableBroker> = (0..6)
        .map(|id| UsableBroker {
            id,
            rack: Some(format!("r{}", id % 3)),
            fenced: id % 2 == 1,
        })
        .collect();
    for seed in 0..20 {
        let placed = place(&mut MockRandom::new(seed), &brokers, 30, 5).unwrap();
        for replicas in &placed {
            assert_eq!(replicas[0] % 2, 0, "{replicas:?}");
            let mut distinct = replicas.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), 5, "{replicas:?}");
        }
    }
}

fn cluster(tmp: &std::path::Path, args: &[&str]) -> String {
    let dir = tmp.join("cluster").display().to_string();
    let mut all = vec!["--data-dir", dir.as_str(), "cluster", "init"];
    all.extend_from_slice(args);
    kafkit(tmp, &all).ok();
    dir
}

/// `topics --create` in the cluster at `dir` with `args`.
fn create(tmp: &std::path::Path, dir: &str, args: &[&str]) -> crate::common::Run {
    let mut all = vec!["--data-dir", dir, "topics", "--create"];
    all.extend_from_slice(args);
    kafkit(tmp, &all)
}

fn replicas(dir: &str, topic: &str) -> Vec<Vec<i32>> {
    let image =
        MetadataImage::load(&std::path::Path::new(dir).join("__cluster_metadata-0")).unwrap();
    image.topics[topic]
        .partitions
        .values()
        .map(|p| p.replicas.clone())
        .collect()
}

/// With `--placement-seed 17` a cluster's controller draws from Kafka's `MockRandom(17)` for
/// each creation: brokers 1, 2, 3 without racks, 3 partitions of 3 replicas is the vectors'
/// case `[2,3,1] [3,1,2] [1,2,3]`.
#[test]
fn topics_create_in_a_seeded_cluster_places_as_the_striped_vectors() {
    let tmp = tempdir();
    let dir = cluster(tmp.path(), &["--brokers", "3", "--placement-seed", "17"]);
    let create = |topic: &str, partitions: &str, rf: &str| {
        let args = [
            "--topic",
            topic,
            "--partitions",
            partitions,
            "--replication-factor",
            rf,
        ];
        create(tmp.path(), &dir, &args)
    };
    assert_eq!(create("t", "3", "3").ok(), "Created topic t.\n");
    assert_eq!(replicas(&dir, "t"), [[2, 3, 1], [3, 1, 2], [1, 2, 3]]);
    // The same seed for every creation: the same placement again.
    create("u", "3", "3").ok();
    assert_eq!(replicas(&dir, "u"), replicas(&dir, "t"));
    // The controller's wrapping of the placer's refusal.
    let refused = create("v", "1", "4");
    assert!(
        refused.stdout.contains(
            "Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered."
        ),
        "{}",
        refused.stdout
    );
}

/// Without a seed the placement is random, as a controller's: over many topics more than one
/// placement shows up, each a striped one (every broker once per partition).
#[test]
fn topics_create_in_an_unseeded_cluster_places_at_random() {
    let tmp = tempdir();
    let dir = cluster(tmp.path(), &["--brokers", "4"]);
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..16 {
        let topic = format!("t{n}");
        let args = [
            "--topic",
            &topic,
            "--partitions",
            "4",
            "--replication-factor",
            "2",
        ];
        create(tmp.path(), &dir, &args).ok();
        let placed = replicas(&dir, &topic);
        let mut leaders: Vec<i32> = placed.iter().map(|r| r[0]).collect();
        leaders.sort_unstable();
        assert_eq!(leaders, [1, 2, 3, 4], "{placed:?}");
        seen.insert(placed);
    }
    // One rack of four brokers: four placements, one per start offset; 16 creations all
    // drawing the same one has odds 4^-15, below 1e-9.
    assert!(seen.len() > 1, "{seen:?}");
}

/// A fenced broker is placed only as a follower and left out of the ISR; a broker in
/// controlled shutdown is not placed on; with every broker fenced the controller refuses.
#[test]
fn topics_create_in_a_cluster_with_fenced_and_stopping_brokers() {
    use kafkit::cluster::init::append_records;
    use kafkit::cluster::records::{Endpoint, MetadataRecord, RegisterBroker};
    let tmp = tempdir();
    let dir = cluster(tmp.path(), &["--brokers", "4", "--placement-seed", "17"]);
    let log = std::path::Path::new(&dir).join("__cluster_metadata-0");
    // A broker's re-registration (kafkit writes RegisterBrokerRecord, not the fencing records),
    // fenced or in controlled shutdown.
    let reregister = |id: i32, fenced: bool, in_controlled_shutdown: bool| {
        let b = MetadataImage::load(&log).unwrap().brokers[&id].clone();
        MetadataRecord::RegisterBroker(RegisterBroker {
            broker_id: id,
            incarnation_id: b.incarnation_id,
            broker_epoch: b.epoch + 100,
            endpoints: vec![Endpoint {
                name: "PLAINTEXT".into(),
                host: "localhost".into(),
                port: 9090 + id as u16,
                security_protocol: 0,
            }],
            features: vec![("metadata.version".into(), 7, 25)],
            rack: None,
            fenced,
            in_controlled_shutdown,
            log_dirs: b.log_dirs.clone(),
        })
    };
    let records = [reregister(2, true, false), reregister(4, false, true)];
    append_records(&log, &records, 1_700_000_000_000).unwrap();
    let create = |args: &[&str]| create(tmp.path(), &dir, args);
    create(&[
        "--topic",
        "f",
        "--partitions",
        "6",
        "--replication-factor",
        "3",
    ])
    .ok();
    // The placer's answer for brokers 1, 3 and fenced 2, as the controller iterates them.
    let usable = [(1, false), (2, true), (3, false)].map(|(id, fenced)| UsableBroker {
        id,
        rack: None,
        fenced,
    });
    let expected = place(&mut MockRandom::new(17), &usable, 6, 3).unwrap();
    let image = MetadataImage::load(&log).unwrap();
    let partitions: Vec<_> = image.topics["f"].partitions.values().collect();
    assert_eq!(
        partitions
            .iter()
            .map(|p| p.replicas.clone())
            .collect::<Vec<_>>(),
        expected
    );
    for p in &partitions {
        assert!(!p.replicas.contains(&4), "{:?}", p.replicas);
        assert!(p.replicas.contains(&2), "{:?}", p.replicas);
        assert_ne!(p.leader, 2);
        assert_eq!(p.leader, p.replicas[0]);
        let active: Vec<i32> = p.replicas.iter().copied().filter(|&r| r != 2).collect();
        assert_eq!(p.isr, active);
    }
    // A manual assignment on the fenced broker alone, then every usable broker fenced.
    let manual = create(&["--topic", "m", "--replica-assignment", "2"]);
    assert!(
        manual
            .stdout
            .contains("All brokers specified in the partition assignment are currently fenced."),
        "{}",
        manual.stdout
    );
    let records = [reregister(1, true, false), reregister(3, true, false)];
    append_records(&log, &records, 1_700_000_000_000).unwrap();
    let fenced = create(&[
        "--topic",
        "g",
        "--partitions",
        "1",
        "--replication-factor",
        "1",
    ]);
    assert!(
        fenced.stdout.contains(
            "Unable to replicate the partition 1 time(s): All brokers are currently fenced."
        ),
        "{}",
        fenced.stdout
    );
    assert!(!MetadataImage::load(&log).unwrap().topics.contains_key("g"));
}

/// A `placement.seed` that is not a number is named with its file, and nothing is created.
#[test]
fn a_bad_placement_seed_is_a_clear_error() {
    let tmp = tempdir();
    let dir = cluster(tmp.path(), &["--brokers", "2", "--placement-seed", "5"]);
    let props = std::path::Path::new(&dir).join("controller.properties");
    assert!(fs::read_to_string(&props)
        .unwrap()
        .contains("placement.seed=5\n"));
    fs::write(&props, "placement.seed = abc\n").unwrap();
    let run = create(tmp.path(), &dir, &["--topic", "s", "--partitions", "1"]);
    assert_eq!(run.code, 1);
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(
        out.contains(
            "controller.properties: placement.seed must be a non-negative integer, not \"abc\""
        ),
        "{out}"
    );
    let log = std::path::Path::new(&dir).join("__cluster_metadata-0");
    assert!(!MetadataImage::load(&log).unwrap().topics.contains_key("s"));
}
