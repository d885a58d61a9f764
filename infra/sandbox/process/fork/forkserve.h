/*
 * The server loop the native fork servers share (../forkServer.ts says what a fork server is for
 * and how it is isolated; rfork.c and luafork.c include this file, each built on its own into a
 * library its interpreter loads): per request (one JSON line on fd 3) it forks one child and
 * answers one JSON line on fd 1 (exit code or signal, time-out, the first `cap` bytes of stdout and
 * stderr in base64, their sizes), as fork/pl.pl's loop does in Perl. fork_serve returns only in a
 * child, which has then its own session, stdout and stderr on fresh socket pairs (a lone run's are
 * Node's socket pairs), stdin /dev/null (the server's own), cwd /tmp (emptied before the fork), the
 * lone run's rlimits, no groups and the slot's uid: the language's part then becomes the program.
 */
#ifndef EXPLORA_FORKSERVE_H
#define EXPLORA_FORKSERVE_H
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_FD 3

struct fork_request {
  long long uid, cap, timeout_ms, cpu, memory, processes, file_bytes, open_files;
  int data; /* memoryKind "data": RLIMIT_DATA, else RLIMIT_AS */
};

/* The number after "key": in a flat JSON line (forkServer.ts writes numbers and one string). */
static int number_of(const char *line, const char *key, long long *out) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *at = strstr(line, pattern);
  if (!at) return -1;
  char *end;
  errno = 0;
  *out = strtoll(at + strlen(pattern), &end, 10);
  return errno || end == at + strlen(pattern) ? -1 : 0;
}

static int fork_parse(const char *line, struct fork_request *r) {
  if (number_of(line, "uid", &r->uid) || number_of(line, "cap", &r->cap) || number_of(line, "timeoutMs", &r->timeout_ms) ||
      number_of(line, "cpu", &r->cpu) || number_of(line, "memory", &r->memory) || number_of(line, "processes", &r->processes) ||
      number_of(line, "fileBytes", &r->file_bytes) || number_of(line, "openFiles", &r->open_files))
    return -1;
  r->data = strstr(line, "\"memoryKind\":\"data\"") != NULL;
  return r->uid > 0 ? 0 : -1;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Every process of the slot's uid killed, as the lone run's pid namespace ends with its program. */
static void kill_uid(uid_t uid) {
  for (int round = 0; round < 200; round++) {
    int found = 0;
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
      char path[300];
      struct stat st;
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      snprintf(path, sizeof path, "/proc/%s", e->d_name);
      if (stat(path, &st) == 0 && st.st_uid == uid) {
        kill(atoi(e->d_name), SIGKILL);
        found = 1;
      }
    }
    closedir(d);
    if (!found) return;
    usleep(5000);
  }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  if (ftw->level > 0) remove(path);
  return 0;
}

static void empty_tmp(void) { nftw("/tmp", remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT); }

/* No supplementary groups, then the slot's uid as real, effective and saved uid and gid: 0 when done. */
static int drop_to(uid_t uid) { return setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0; }

/* Whether /proc/sysvipc lists any shared memory, semaphore set or message queue (a line past its header). */
static int ipc_left(void) {
  static const char *const lists[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"};
  for (int i = 0; i < 3; i++) {
    FILE *f = fopen(lists[i], "r");
    if (!f) continue;
    int lines = 0, c;
    while (lines < 2 && (c = fgetc(f)) != EOF)
      if (c == '\n') lines++;
    fclose(f);
    if (lines >= 2) return 1;
  }
  return 0;
}

/* The SysV IPC objects earlier programs left (the lone run's IPC namespace ends with its program;
   this server's outlives them): removed by `ipcrm --all` run as the slot's uid, which owns them.
   The namespace is the server's own, so whatever is listed there a program of this slot made. */
static void remove_ipc(uid_t uid) {
  if (!ipc_left()) return;
  pid_t p = fork();
  if (p == 0) {
    if (drop_to(uid)) _exit(120);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 1);
      dup2(devnull, 2);
    }
    execl("/usr/bin/ipcrm", "ipcrm", "--all", (char *)NULL);
    _exit(127);
  }
  if (p > 0)
    while (waitpid(p, NULL, 0) < 0 && errno == EINTR) {
    }
}

static void set_limit(int resource, long long soft, long long hard) {
  struct rlimit l = {(rlim_t)soft, (rlim_t)hard};
  if (setrlimit(resource, &l) != 0) _exit(120);
}

/* In the child: what a lone run's program has (the language's part does the rest). */
static void fork_become_child(const struct fork_request *r, int out_w, int err_w) {
  if (dup2(out_w, 1) != 1 || dup2(err_w, 2) != 2) _exit(120);
  close(out_w);
  close(err_w);
  close(CONTROL_FD);
  setsid();
  if (chdir("/tmp") != 0) _exit(120);
  set_limit(RLIMIT_CPU, r->cpu, r->cpu + 1);
  set_limit(r->data ? RLIMIT_DATA : RLIMIT_AS, r->memory, r->memory);
  set_limit(RLIMIT_NPROC, r->processes, r->processes);
  set_limit(RLIMIT_FSIZE, r->file_bytes, r->file_bytes);
  set_limit(RLIMIT_NOFILE, r->open_files, r->open_files);
  set_limit(RLIMIT_CORE, 0, 0);
  uid_t uid = (uid_t)r->uid;
  if (drop_to(uid)) _exit(120);
  if (getuid() != uid || geteuid() != uid || getgid() != uid) _exit(120);
  // Changing uid left the child non-dumpable, its /proc/self owned by root: a lone run's program,
  // exec'd as the uid, reads its own /proc/self/environ, status and fds, and so does this one.
  if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) _exit(120);
}

struct capture {
  int fd;
  char *kept;
  long long kept_len, total;
};

static void take(struct capture *c, long long cap) {
  char chunk[65536];
  ssize_t n = read(c->fd, chunk, sizeof chunk);
  if (n <= 0) {
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    close(c->fd);
    c->fd = -1;
    return;
  }
  c->total += n;
  if (c->kept_len < cap) {
    long long room = cap - c->kept_len, take = n < room ? n : room;
    memcpy(c->kept + c->kept_len, chunk, (size_t)take);
    c->kept_len += take;
  }
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64(const char *in, long long len) {
  char *out = malloc((size_t)(len + 2) / 3 * 4 + 1), *o = out;
  for (long long i = 0; i < len; i += 3) {
    unsigned v = (unsigned char)in[i] << 16 | (i + 1 < len ? (unsigned char)in[i + 1] << 8 : 0) | (i + 2 < len ? (unsigned char)in[i + 2] : 0);
    *o++ = B64[v >> 18 & 63];
    *o++ = B64[v >> 12 & 63];
    *o++ = i + 1 < len ? B64[v >> 6 & 63] : '=';
    *o++ = i + 2 < len ? B64[v & 63] : '=';
  }
  *o = 0;
  return out;
}

static void write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(1);
    s += w;
    n -= (size_t)w;
  }
}

/* One request: returns 1 in the child (the program's turn), 0 in the server once it has answered. */
static int fork_serve_one(const struct fork_request *r) {
  empty_tmp();
  remove_ipc((uid_t)r->uid);
  int out[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, err) != 0) _exit(1);
  double started = now_ms();
  pid_t pid = fork();
  if (pid < 0) _exit(1);
  if (pid == 0) {
    close(out[0]);
    close(err[0]);
    fork_become_child(r, out[1], err[1]);
    return 1;
  }
  close(out[1]);
  close(err[1]);
  struct capture caps[2] = {{out[0], malloc((size_t)r->cap + 1), 0, 0}, {err[0], malloc((size_t)r->cap + 1), 0, 0}};
  double deadline = started + (double)r->timeout_ms;
  int status = 0, reaped = 0, timed_out = 0;
  for (;;) {
    if (!reaped) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        reaped = 1;
        kill_uid((uid_t)r->uid);
      } else if (now_ms() >= deadline) {
        timed_out = 1;
        kill_uid((uid_t)r->uid);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        reaped = 1;
      }
    }
    /* Done when the child is reaped and its sockets are at their end (in either order). */
    if (reaped && caps[0].fd < 0 && caps[1].fd < 0) break;
    double left = deadline - now_ms();
    int wait = reaped ? 10 : left > 10 ? 10 : left < 0 ? 0 : (int)left;
    struct pollfd fds[2];
    int n = 0;
    for (int i = 0; i < 2; i++)
      if (caps[i].fd >= 0) fds[n++] = (struct pollfd){caps[i].fd, POLLIN, 0};
    if (n == 0) {
      usleep(1000);
      continue;
    }
    if (poll(fds, (nfds_t)n, wait) <= 0) continue;
    for (int k = 0; k < n; k++)
      if (fds[k].revents)
        for (int i = 0; i < 2; i++)
          if (caps[i].fd == fds[k].fd) take(&caps[i], r->cap);
  }
  char exit_code[16] = "null", signal_name[32] = "null";
  if (timed_out)
    snprintf(signal_name, sizeof signal_name, "\"SIGKILL\"");
  else if (WIFSIGNALED(status))
    snprintf(signal_name, sizeof signal_name, "\"SIG%s\"", sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "UNKNOWN");
  else
    snprintf(exit_code, sizeof exit_code, "%d", WEXITSTATUS(status));
  char *so = base64(caps[0].kept, caps[0].kept_len), *se = base64(caps[1].kept, caps[1].kept_len);
  size_t size = strlen(so) + strlen(se) + 512;
  char *answer = malloc(size);
  int len = snprintf(answer, size,
                     "{\"exitCode\":%s,\"signal\":%s,\"timedOut\":%s,\"durationMs\":%.3f,\"stdout\":\"%s\",\"stderr\":\"%s\","
                     "\"stdoutBytes\":%lld,\"stderrBytes\":%lld}\n",
                     exit_code, signal_name, timed_out ? "true" : "false", now_ms() - started, so, se, caps[0].total, caps[1].total);
  write_all(1, answer, (size_t)len);
  free(answer);
  free(so);
  free(se);
  free(caps[0].kept);
  free(caps[1].kept);
  return 0;
}

/* Refuses (exits 1, saying why) unless bwrap is pid 1: the loop empties /tmp before each program. */
static void fork_require_sandbox(const char *language) {
  char comm[64] = {0};
  int c = open("/proc/1/comm", O_RDONLY);
  if (c < 0 || read(c, comm, sizeof comm - 1) < 0 || strcmp(comm, "bwrap\n") != 0) {
    char refusal[128];
    int n = snprintf(refusal, sizeof refusal, "the %s fork server runs only in its sandbox (bwrap as pid 1)\n", language);
    write_all(2, refusal, (size_t)n);
    _exit(1);
  }
  close(c);
}

/*
 * The loop: returns only in a forked child (set up by fork_become_child). `alone`, when given, is
 * the language's screen: a request it returns non-zero for is answered {"alone":true} unforked.
 */
static void fork_serve(int (*alone)(void)) {
  static char line[4096];
  size_t have = 0;
  for (;;) {
    char *newline = memchr(line, '\n', have);
    if (!newline) {
      if (have == sizeof line) _exit(1);
      ssize_t n = read(CONTROL_FD, line + have, sizeof line - have);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(0);
      have += (size_t)n;
      continue;
    }
    *newline = 0;
    struct fork_request r;
    if (fork_parse(line, &r) != 0) _exit(1);
    size_t used = (size_t)(newline - line) + 1;
    memmove(line, newline + 1, have - used);
    have -= used;
    if (alone && alone()) {
      static const char answer[] = "{\"alone\":true}\n";
      write_all(1, answer, sizeof answer - 1);
      continue;
    }
    if (fork_serve_one(&r)) return;
  }
}

#endif
