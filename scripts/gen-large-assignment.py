#!/usr/bin/env python3
"""Writes Kafka's large sticky-assignor case as assignor-vector files for
`kafkit simulate-assignment --scenario` (schema: spec/vectors/assignors/README.md).

AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription
(spec/vectors/assignors/performance-anchors.json): 2,000 consumers "c0000".."c1999" subscribe to
500 topics "t000".."t499" of 2,000 partitions each; assign from scratch, then consumers 1..1999
report their assignment as owned (generation 1), consumer 0 reports nothing, and assign again.

  gen-large-assignment.py round1 OUT.json [--topics N --partitions N --consumers N --strategy S]
  gen-large-assignment.py round2 ROUND1-OUTPUT.jsonl OUT.json [same options]

round2 reads the `--output json` lines kafkit printed for round 1 (the `assignment` of its
`vector_round`).
Members are listed in the iteration order of the test's java.util.HashMap, as the schema asks.
"""

import argparse
import json
import sys


def canonical(prefix, i, max_num):
    # AbstractStickyAssignorTest.getCanonicalName: the number padded to the width of max_num.
    return prefix + str(i).zfill(len(str(max_num)))


def java_hash(s):
    h = 0
    for ch in s:  # ASCII names: one UTF-16 unit per character
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


def hashmap_order(keys):
    """Iteration order of a java.util.HashMap (default capacity, load factor 0.75) into which
    `keys` were put in order (no bucket here holds the 8 entries that would make it a tree)."""
    cap = 16
    while len(keys) > cap * 3 // 4:
        cap *= 2
    buckets = {}
    for k in keys:
        h = java_hash(k)
        h ^= h >> 16
        buckets.setdefault(h & (cap - 1), []).append(k)
    return [k for b in sorted(buckets) for k in buckets[b]]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("step", choices=["round1", "round2"])
    p.add_argument("files", nargs="+")
    p.add_argument("--topics", type=int, default=500)
    p.add_argument("--partitions", type=int, default=2000)
    p.add_argument("--consumers", type=int, default=2000)
    p.add_argument("--strategy", default="cooperative-sticky")
    a = p.parse_args()
    topics = [canonical("t", i, a.topics) for i in range(a.topics)]
    consumers = [canonical("c", i, a.consumers) for i in range(a.consumers)]
    owned = {}
    if a.step == "round2":
        if len(a.files) != 2:
            p.error("round2 takes ROUND1-OUTPUT.jsonl OUT.json")
        with open(a.files[0]) as f:
            for line in f:
                obj = json.loads(line)
                if obj.get("type") == "vector_round":
                    owned = obj["assignment"]
                    break
            else:
                sys.exit(f"{a.files[0]}: no vector_round line")
    elif len(a.files) != 1:
        p.error("round1 takes OUT.json")
    members = []
    for cid in hashmap_order(consumers):
        m = {"id": cid, "topics": topics}
        if a.step == "round2":
            m["owned"] = owned.get(cid, []) if cid != consumers[0] else []
            m["generation"] = 1
            if a.strategy == "cooperative-sticky":
                m["user_data"] = {"kind": "cooperative", "generation": 1}
            else:
                m["user_data"] = {"kind": "sticky", "partitions": m["owned"], "generation": 1}
                del m["owned"]
        members.append(m)
    vector = {
        "id": f"large-uniform-subscription-{a.step}",
        "assignor": a.strategy,
        "description": f"{a.consumers} consumers, {a.topics} topics x {a.partitions} partitions "
        "(AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription), " + a.step,
        "rounds": [
            {
                "topics": {t: a.partitions for t in topics},
                "member_map": {"type": "HashMap"},
                "members": members,
            }
        ],
    }
    with open(a.files[-1], "w") as f:
        json.dump(vector, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
