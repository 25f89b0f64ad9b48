/* The input side's floor for scripts/bench-floor.sh: read a file of lines, find each line
 * with memchr and copy it (with a length byte) into a buffer, as a producer must at the least.
 *   read_lines MODE FILE WINDOW_KIB
 * MODE 0: read() in WINDOW_KIB blocks; 1: mmap + MADV_SEQUENTIAL; 2: mmap + MAP_POPULATE;
 * 3: mmap, MADV_POPULATE_READ one window ahead (lines across windows are skipped).
 * Prints wall, user and system seconds. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/resource.h>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
static char out[1<<20];
static size_t outlen;
static unsigned long sink;
static void lines(const char *p, size_t n) {
  const char *e = p + n;
  while (p < e) {
    const char *nl = memchr(p, '\n', e - p);
    if (!nl) break;
    size_t l = nl - p;
    if (outlen + l + 8 > sizeof out) { sink += out[outlen/2]; outlen = 0; }
    out[outlen++] = (char)l; memcpy(out + outlen, p, l); outlen += l;
    p = nl + 1;
  }
}
int main(int argc, char **argv) {
  int mode = atoi(argv[1]); size_t win = (size_t)atoi(argv[3]) << 10;
  int fd = open(argv[2], O_RDONLY); struct stat st; fstat(fd, &st); size_t size = st.st_size;
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
  if (mode == 0) {
    char *buf = malloc(win + 4096); size_t keep = 0; ssize_t r;
    while ((r = read(fd, buf + keep, win - keep)) > 0) {
      size_t have = keep + r; char *last = memrchr(buf, '\n', have);
      size_t used = last ? last - buf + 1 : 0; lines(buf, used);
      keep = have - used; memmove(buf, buf + used, keep);
    }
  } else {
    char *m = mmap(0, size, PROT_READ, MAP_PRIVATE | (mode == 2 ? MAP_POPULATE : 0), fd, 0);
    if (mode == 1) madvise(m, size, MADV_SEQUENTIAL);
    if (mode == 3) {
      for (size_t off = 0; off < size; off += win) {
        size_t n = size - off < win ? size - off : win;
        if (off + win < size) madvise(m + off + win, (size - off - win) < win ? size - off - win : win, MADV_POPULATE_READ);
        if (off == 0) madvise(m, n, MADV_POPULATE_READ);
        lines(m + off, n); /* approx: boundary lines ignored */
      }
    } else lines(m, size);
    munmap(m, size);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  struct rusage ru; getrusage(RUSAGE_SELF, &ru);
  printf("mode %d win %zuK: wall %.3f user %.3f sys %.3f (%lu)\n", mode, win>>10, (t1.tv_sec-t0.tv_sec)+(t1.tv_nsec-t0.tv_nsec)/1e9, ru.ru_utime.tv_sec+ru.ru_utime.tv_usec/1e6, ru.ru_stime.tv_sec+ru.ru_stime.tv_usec/1e6, sink);
}
