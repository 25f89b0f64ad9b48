/* The output side's floor for scripts/bench-floor.sh: write TOTAL bytes to a new file from
 * one hot 256 KiB buffer in 256 KiB write()s, with CRC=1 a CRC-32C pass (one stream, SSE4.2)
 * over each buffer first.
 *   write_only OUT TOTAL CRC
 * Prints wall, user and system seconds. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>
#include <nmmintrin.h>
int main(int argc, char **argv) {
  size_t total = (size_t)atol(argv[2]) ; size_t chunk = 256<<10; int crc = atoi(argv[3]);
  char *buf = malloc(chunk); memset(buf, 'x', chunk);
  int fd = open(argv[1], O_WRONLY|O_CREAT|O_TRUNC, 0644);
  struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long c = 0;
  for (size_t done = 0; done < total; done += chunk) {
    if (crc) for (size_t i = 0; i < chunk; i += 8) c = _mm_crc32_u64(c, *(unsigned long*)(buf+i));
    write(fd, buf, chunk);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  struct rusage ru; getrusage(RUSAGE_SELF, &ru);
  printf("write %zuMB crc=%d: wall %.3f user %.3f sys %.3f (%lx)\n", total>>20, crc, (t1.tv_sec-t0.tv_sec)+(t1.tv_nsec-t0.tv_nsec)/1e9, ru.ru_utime.tv_sec+ru.ru_utime.tv_usec/1e6, ru.ru_stime.tv_sec+ru.ru_stime.tv_usec/1e6, c);
  close(fd);
}
