// What one thread wake-up costs on this machine, without kvorum: two processes pass one byte back
// and forth over two pipes; each round trip is two wake-ups. Prints wall time and CPU time (both
// processes) per round trip, the two processes on the two first cores, or with "same" both on the
// first core. docs/performance.md ("Where the time goes now") uses it:
//
//   gcc -O2 -o /tmp/pingpong bench/tools/wakeup/pingpong.c && /tmp/pingpong 100000 && /tmp/pingpong 100000 same
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  int same = argc > 2;
  int there[2], back[2];
  char byte = 'x';
  if (pipe(there) || pipe(back)) return 1;
  pid_t child = fork();
  if (child == 0) {
    pin(same ? 0 : 1);
    for (int i = 0; i < n; i++) {
      if (read(there[0], &byte, 1) != 1 || write(back[1], &byte, 1) != 1) _exit(1);
    }
    _exit(0);
  }
  pin(0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++) {
    if (write(there[1], &byte, 1) != 1 || read(back[0], &byte, 1) != 1) return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int status;
  waitpid(child, &status, 0);
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double cpu = seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime)
      + seconds(children.ru_stime);
  printf("%s: %d round trips, %.2f us wall and %.2f us CPU each (two wake-ups per round trip)\n",
      same ? "one core" : "two cores", n, wall * 1e6 / n, cpu * 1e6 / n);
  return 0;
}
