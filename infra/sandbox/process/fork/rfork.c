/*
 * The R fork server's native part (fork/r.R loads this library into a warm Rscript and calls
 * explora_fork_serve through .C). Base R can fork but cannot drop to a uid, set rlimits or move
 * file descriptors, so the whole server loop is native: forkserve.h's, shared with luafork.c. It
 * returns only in a child, set up as forkserve.h says, in which R's session directory (tempdir(),
 * under the emptied /tmp) is made again as the slot's uid.
 * Last, the child puts /build/program.r on the descriptor R's --file reads the server script from:
 * that script ends with the .C call, so R's console, which has read the whole script and nothing
 * past it, goes on reading the program, one top-level expression at a time, exactly as
 * `Rscript /build/program.r` reads its file (auto-printing, "Execution halted", its exit status).
 */
#include "forkserve.h"

#define PROGRAM "/build/program.r"
#define SCRIPT "/fork/r.R"

/* The descriptor R reads this server's script from (its --file). */
static int script_fd(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  struct dirent *e;
  int found = -1;
  while ((e = readdir(d))) {
    char path[300], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = 0;
    if (strcmp(target, SCRIPT) == 0) found = atoi(e->d_name);
  }
  closedir(d);
  return found;
}

/* Called once by fork/r.R through .C with R's tempdir(): the server's loop; returns only in a forked child. */
void explora_fork_serve(char **tempdir) {
  fork_require_sandbox("R");
  /* R's session directory (tempdir(), made under /tmp at R's start): the server empties /tmp before each fork. */
  static char session_dir[4096];
  if (tempdir && tempdir[0] && strlen(tempdir[0]) < sizeof session_dir && strncmp(tempdir[0], "/tmp/", 5) == 0)
    strcpy(session_dir, tempdir[0]);
  int script = script_fd();
  if (script < 0) _exit(1);
  fork_serve(NULL);
  /* The child, as the slot's uid: the session directory made again with R's mode (mkdtemp's 0700), as a lone Rscript makes its own. */
  if (session_dir[0] && mkdir(session_dir, 0700) != 0) _exit(120);
  /* Opened as the slot's uid, as Rscript opens its file. */
  int program = open(PROGRAM, O_RDONLY | O_CLOEXEC);
  if (program < 0 || dup2(program, script) != script) _exit(120);
  close(program);
  /* dup2 clears close-on-exec; R's own descriptor for its file did not have it either. */
}
