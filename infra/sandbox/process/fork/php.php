<?php
// The PHP fork server (../forkServer.ts says what it is for and how it is isolated): a warm php
// that, per request (one JSON line on fd 3), forks one child that becomes the program
// (/build/program.php) as `php /build/program.php` would run it, and answers one JSON line on
// fd 1, as fork/rb.rb and fork/pl.pl do. It runs as root in its own sandbox; each child drops to
// the slot's uid, with the lone run's limits (posix_setrlimit), in a /tmp emptied before it
// starts. What PHP has no function for (socketpair, dup2, setgroups) goes through FFI to libc
// (the CLI allows FFI: ffi.enable=preload).
//
// The child includes the program at the global scope (its variables are globals, as a main
// script's), from this file's own namespace (the program's functions cannot clash with the
// server's), with $argv, $argc and $_SERVER's script entries as `php /build/program.php` sets
// them; an uncaught throwable is thrown again without the server's frames in its trace, so PHP
// reports it as for a main script (a ParseError included: PHP prints it as a parse error).
namespace ExploraForkServer;

const PROGRAM = '/build/program.php';

// It empties /tmp before each program: only ever inside its own sandbox (bwrap is its pid 1).
if (@file_get_contents('/proc/1/comm') !== "bwrap\n") {
    fwrite(STDERR, "the PHP fork server runs only in its sandbox (bwrap as pid 1)\n");
    exit(1);
}

// What the child needs (pcntl, posix, FFI: a php.ini may disable FFI): without it the server ends
// at once, and the runner runs each program alone.
if (!function_exists('pcntl_fork') || !function_exists('posix_setrlimit') || !class_exists(\FFI::class, false)) {
    fwrite(STDERR, "the PHP fork server needs pcntl, posix and FFI\n");
    exit(1);
}

function libc(): \FFI
{
    static $libc = null;
    return $libc ??= \FFI::cdef('int socketpair(int domain, int type, int protocol, int *fds); int open(const char *path, int flags); int dup2(int from, int to); int close(int fd); int setgroups(size_t n, const void *list); int prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);');
}

/**
 * A program's stdout or stderr: [the server's end, the child's end]. A Unix stream socket pair,
 * as the runner gives a lone run (Node's stdio pipes are socket pairs): PHP opens STDOUT and
 * STDERR as socket streams on sockets, so their kind must not change under the program.
 */
function socketPair(): array
{
    $fds = \FFI::new('int[2]');
    if (libc()->socketpair(1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0, $fds) !== 0) throw new \RuntimeException('socketpair');
    return [$fds[0], $fds[1]];
}

/** Every process of the slot's uid, as /proc shows them. */
function uidPids(int $uid): array
{
    $pids = [];
    clearstatcache(); // fileowner() would answer a pid number seen before from PHP's stat cache
    foreach (scandir('/proc') ?: [] as $e) {
        if (ctype_digit($e) && @fileowner("/proc/$e") === $uid) $pids[] = (int) $e;
    }
    return $pids;
}

// Every process of the slot's uid killed, as the lone run's pid namespace ends with its program.
function killUid(int $uid): void
{
    for ($i = 0; $i < 200; $i++) {
        $pids = uidPids($uid);
        if (!$pids) return;
        foreach ($pids as $p) posix_kill($p, SIGKILL);
        usleep(5000);
    }
}

function removeTree(string $path): void
{
    if (is_link($path) || !is_dir($path)) {
        @unlink($path);
        return;
    }
    foreach (scandir($path) ?: [] as $e) {
        if ($e !== '.' && $e !== '..') removeTree("$path/$e");
    }
    @rmdir($path);
}

function emptyTmp(): void
{
    clearstatcache();
    foreach (scandir('/tmp') ?: [] as $e) {
        if ($e !== '.' && $e !== '..') removeTree("/tmp/$e");
    }
}

/**
 * SysV IPC objects earlier programs left (a lone run's IPC namespace ends with it): removed by
 * `ipcrm --all` as the slot's uid, which owns them, when /proc/sysvipc lists any (fork/forkserve.h).
 */
function removeIpc(int $uid): void
{
    $left = false;
    foreach (['shm', 'sem', 'msg'] as $kind) $left = $left || count(@file("/proc/sysvipc/$kind") ?: []) > 1;
    if (!$left) return;
    $pid = pcntl_fork();
    if ($pid === 0) {
        if (libc()->setgroups(0, null) !== 0 || !posix_setgid($uid) || !posix_setuid($uid)) exit(120);
        $null = libc()->open('/dev/null', 1);
        libc()->dup2($null, 1);
        libc()->dup2($null, 2);
        pcntl_exec('/usr/bin/ipcrm', ['--all']);
        exit(127);
    }
    if ($pid > 0) pcntl_waitpid($pid, $status);
}

/** In the child: its fds, session, cwd, limits and uid, as the lone run's program has them. */
function becomeProgram(array $req, int $outW, int $errW): void
{
    $c = libc();
    // fd 0: /dev/null (as the server's has been from its start, so that STDIN is a plain stream as
    // in the lone run); 1 and 2: the program's sockets (the server's 1 is its answers' channel).
    $null = $c->open('/dev/null', 0);
    if ($null < 0 || $c->dup2($null, 0) !== 0 || $c->dup2($outW, 1) !== 1 || $c->dup2($errW, 2) !== 2) exit(120);
    foreach ([$null, $outW, $errW] as $fd) $c->close($fd);
    posix_setsid();
    if (!chdir('/tmp')) exit(120);
    $l = $req['limits'];
    $limits = [
        [POSIX_RLIMIT_CPU, $l['cpu'], $l['cpu'] + 1],
        [$l['memoryKind'] === 'data' ? POSIX_RLIMIT_DATA : POSIX_RLIMIT_AS, $l['memory'], $l['memory']],
        [POSIX_RLIMIT_NPROC, $l['processes'], $l['processes']],
        [POSIX_RLIMIT_FSIZE, $l['fileBytes'], $l['fileBytes']],
        [POSIX_RLIMIT_NOFILE, $l['openFiles'], $l['openFiles']],
        [POSIX_RLIMIT_CORE, 0, 0],
    ];
    foreach ($limits as [$resource, $soft, $hard]) if (!posix_setrlimit($resource, $soft, $hard)) exit(120);
    $uid = $req['uid'];
    // No groups, then gid and uid (real, effective, saved: root's setgid/setuid set all three).
    if ($c->setgroups(0, null) !== 0 || !posix_setgid($uid) || !posix_setuid($uid)) exit(120);
    if (posix_getuid() !== $uid || posix_geteuid() !== $uid || posix_getgid() !== $uid || posix_getegid() !== $uid) exit(120);
    // Dumpable again (PR_SET_DUMPABLE), as a program exec'd as the uid is: its /proc/self is its own (fork/forkserve.h).
    if ($c->prctl(4, 1, 0, 0, 0) !== 0) exit(120);
}

/** A throwable's trace without the server's frames (the include), for it and the ones it wraps. */
function withoutServerFrames(\Throwable $e): \Throwable
{
    for ($t = $e; $t !== null; $t = $t->getPrevious()) {
        $trace = $t->getTrace();
        while ($trace && ($trace[array_key_last($trace)]['file'] ?? null) === __FILE__) array_pop($trace);
        $property = new \ReflectionProperty($t instanceof \Exception ? \Exception::class : \Error::class, 'trace');
        $property->setValue($t, $trace);
    }
    return $e;
}

const SIGNALS = [1 => 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGTRAP', 'SIGABRT', 'SIGBUS', 'SIGFPE', 'SIGKILL', 'SIGUSR1',
    'SIGSEGV', 'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTERM', 'SIGSTKFLT', 'SIGCHLD', 'SIGCONT', 'SIGSTOP', 'SIGTSTP', 'SIGTTIN',
    'SIGTTOU', 'SIGURG', 'SIGXCPU', 'SIGXFSZ', 'SIGVTALRM', 'SIGPROF', 'SIGWINCH', 'SIGIO', 'SIGPWR', 'SIGSYS'];

/** One request: the child, its output, its end; the answer's fields. Returns the request in the child. */
function serveOne(array $req, $control): ?array
{
    $uid = $req['uid'];
    $cap = $req['cap'];
    emptyTmp();
    removeIpc($uid);
    [$outR, $outW] = socketPair();
    [$errR, $errW] = socketPair();
    $started = hrtime(true);
    $pid = pcntl_fork();
    if ($pid < 0) throw new \RuntimeException('fork');
    $c = libc();
    if ($pid === 0) {
        $c->close($outR);
        $c->close($errR);
        fclose($control);
        becomeProgram($req, $outW, $errW);
        return $req;
    }
    $c->close($outW);
    $c->close($errW);
    $open = [];
    foreach (['out' => $outR, 'err' => $errR] as $which => $fd) {
        $open[$which] = fopen("php://fd/$fd", 'r'); // a dup of $fd
        $c->close($fd);
        stream_set_blocking($open[$which], false);
    }
    $kept = ['out' => '', 'err' => ''];
    $total = ['out' => 0, 'err' => 0];
    $deadline = $started + $req['timeoutMs'] * 1_000_000;
    $status = null;
    $timedOut = false;
    while (true) {
        if ($status === null) {
            if (pcntl_waitpid($pid, $s, WNOHANG) === $pid) {
                $status = $s;
                killUid($uid);
            } elseif (hrtime(true) >= $deadline) {
                $timedOut = true;
                killUid($uid);
                pcntl_waitpid($pid, $s);
                $status = $s;
            }
        }
        // Done when the child is reaped and its pipes are at their end (in either order).
        if ($status !== null && !$open) break;
        $wait = $status !== null ? 10_000 : min(10_000, max(0, intdiv($deadline - hrtime(true), 1000)));
        if (!$open) {
            usleep(min($wait, 1000));
            continue;
        }
        $read = array_values($open);
        $none = null;
        if (!@stream_select($read, $none, $none, 0, $wait)) continue;
        foreach ($open as $which => $fh) {
            if (!in_array($fh, $read, true)) continue;
            $chunk = fread($fh, 65536);
            if ($chunk === false || ($chunk === '' && feof($fh))) {
                fclose($fh);
                unset($open[$which]);
                continue;
            }
            $total[$which] += strlen($chunk);
            if (strlen($kept[$which]) < $cap) $kept[$which] .= substr($chunk, 0, $cap - strlen($kept[$which]));
        }
    }
    $signalled = pcntl_wifsignaled($status);
    $answer = [
        'exitCode' => $timedOut || $signalled ? null : pcntl_wexitstatus($status),
        'signal' => $timedOut ? 'SIGKILL' : ($signalled ? (SIGNALS[pcntl_wtermsig($status)] ?? 'SIG' . pcntl_wtermsig($status)) : null),
        'timedOut' => $timedOut,
        'durationMs' => (hrtime(true) - $started) / 1e6,
        'stdout' => base64_encode($kept['out']),
        'stderr' => base64_encode($kept['err']),
        'stdoutBytes' => $total['out'],
        'stderrBytes' => $total['err'],
    ];
    fwrite(STDOUT, json_encode($answer) . "\n");
    return null;
}

/**
 * The server's loop: requests on fd 3 (its launcher, `sh -c 'exec php ... 3<&0 0</dev/null'`,
 * moved them there), answers on fd 1; returns only in a forked child, with its request.
 */
function serve(): array
{
    $control = fopen('php://fd/3', 'r'); // a dup of fd 3
    libc()->close(3); // FFI refused (ffi.enable off) ends the server here, before any program
    while (($line = fgets($control)) !== false) {
        $req = serveOne(json_decode($line, true, 16, JSON_THROW_ON_ERROR), $control);
        if ($req !== null) return $req;
    }
    exit(0);
}

// From here on, the child only (serve() returns in it): the program at the global scope, as the
// main script of `php /build/program.php`, with that command's argv and script entries.
serve();
$argv = [PROGRAM];
$argc = 1;
$_SERVER['argv'] = $argv;
$_SERVER['argc'] = $argc;
foreach (['PHP_SELF', 'SCRIPT_NAME', 'SCRIPT_FILENAME', 'PATH_TRANSLATED'] as $key) $_SERVER[$key] = PROGRAM;
$_SERVER['REQUEST_TIME_FLOAT'] = microtime(true);
$_SERVER['REQUEST_TIME'] = (int) $_SERVER['REQUEST_TIME_FLOAT'];
unset($key);
try {
    include PROGRAM;
} catch (\Throwable $e) {
    throw withoutServerFrames($e);
}
exit(0);
