/* The floor of reading 10,000 log ends (BENCHMARKS.md, "consumer-groups --describe of a group
 * over 10,000 partitions"): for each partition TOPIC-0 .. TOPIC-(N-1) of DATA_DIR, only what a
 * log end needs: open its directory relative to the data directory, getdents64 until empty
 * (the last .log by name), open that .log relative to the directory, fstat, one pread of up to
 * 16 KiB from its start, two closes: 8 system calls a partition, no parsing.
 *   gcc -O2 -pthread -o log_ends scripts/floor/log_ends.c
 *   /usr/bin/time ./log_ends DATA_DIR TOPIC N THREADS
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int root;
static const char *topic;
static int partitions, threads;

static void *work(void *arg) {
    long t = (long)arg, sum = 0;
    static __thread char buf[16384], dents[8192];
    char name[512], last[256];
    for (int p = t; p < partitions; p += threads) {
        snprintf(name, sizeof name, "%s-%d", topic, p);
        int d = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0) { perror(name); exit(1); }
        last[0] = 0;
        long n;
        while ((n = syscall(SYS_getdents64, d, dents, sizeof dents)) > 0) {
            for (long o = 0; o < n;) {
                struct dirent64 *e = (void *)(dents + o);
                size_t l = strlen(e->d_name);
                if (l > 4 && l < sizeof last && !strcmp(e->d_name + l - 4, ".log") && strcmp(e->d_name, last) > 0)
                    strcpy(last, e->d_name);
                o += e->d_reclen;
            }
        }
        int f = openat(d, last, O_RDONLY | O_CLOEXEC);
        if (f < 0) { perror(last); exit(1); }
        struct stat st;
        fstat(f, &st);
        sum += pread(f, buf, st.st_size < (off_t)sizeof buf ? st.st_size : (off_t)sizeof buf, 0);
        close(f);
        close(d);
    }
    return (void *)sum;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: log_ends DATA_DIR TOPIC N THREADS\n"); return 2; }
    root = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (root < 0) { perror(argv[1]); return 1; }
    topic = argv[2];
    partitions = atoi(argv[3]);
    threads = atoi(argv[4]);
    if (threads < 1 || threads > 64) threads = 1;
    pthread_t th[64];
    for (long i = 0; i < threads; i++) pthread_create(&th[i], 0, work, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(th[i], 0);
    return 0;
}
