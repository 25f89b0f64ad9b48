#!/usr/bin/env python3
"""How long a line piped into `kafkit produce` takes to be printed by a `kafkit consume` that
follows the partition: the figure of issue #14 (goal: within linger + 50 ms).

    pipe-latency.py KAFKIT DATA_DIR TOPIC LINGER_MS SAMPLES

Starts one producer (`--timeout LINGER_MS`) and one consumer (from the end, following), writes
SAMPLES lines a while apart, and times each from its write to the consumer's line. Prints the
median and the largest, and each less the linger.
"""
import subprocess
import sys
import time

kafkit, data_dir, topic, linger, samples = sys.argv[1:6]
linger, samples = int(linger), int(samples)
base = [kafkit, "--data-dir", data_dir]
consumer = subprocess.Popen(
    base + ["consume", "--topic", topic, "--partition", "0", "--offset", "latest"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
producer = subprocess.Popen(
    base + ["produce", "--topic", topic, "--timeout", str(linger)],
    stdin=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
time.sleep(1.0)  # both running
lat = []
for i in range(samples):
    line = b"sample-%d\n" % i
    start = time.monotonic()
    producer.stdin.write(line)
    got = consumer.stdout.readline()
    lat.append((time.monotonic() - start) * 1000)
    assert got == line, (got, line)
    time.sleep(0.2)
producer.stdin.close()
producer.wait()
consumer.terminate()
consumer.wait()
lat.sort()
median, worst = lat[len(lat) // 2], lat[-1]
print("pipe to following consumer, linger %d ms, %d samples: median %.1f ms (linger + %.1f), "
      "largest %.1f ms (linger + %.1f)" % (linger, samples, median, median - linger, worst,
                                          worst - linger))
