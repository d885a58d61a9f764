# The Perl fork server (../forkServer.ts says what it is for and how it is isolated): a warm perl
# with Test::Deep loaded (not imported: main:: stays a fresh script's) that, per request (one JSON
# line on fd 0), forks one child that becomes the program (/build/program.pl) as
# `perl /build/program.pl` would run it, and answers one JSON line on fd 1. It runs as root in its
# own sandbox; each child drops to the slot's uid, with the lone run's limits, in a /tmp emptied
# before it starts. A program the child cannot run as perl would (see SCREEN) is answered
# {"alone":true}: the runner runs it alone.
# Exec mode (a request with `argv`: PHP, Lua, bash, R): the child execs the lone run's command
# instead, a fresh interpreter; what is saved is the sandbox's start, not the interpreter's.
package ForkServer;
use strict;
use warnings;
use JSON::PP ();
use POSIX ();
use File::Path ();
use IO::Select ();
use Time::HiRes ();
use MIME::Base64 ();
use Config ();
require Test::Deep;
require Data::Dumper;

my $PROGRAM = '/build/program.pl';
# What `do FILE` runs otherwise than a main script: `caller` (true at the top level under do),
# the DATA handle. (A top-level `return` ends a do FILE quietly, where perl refuses it: not
# screened, as a sub's `return` cannot be told from it by a pattern; MultiPL-E's programs have none.)
my $SCREEN = qr/\bcaller\b|__DATA__|__END__/;
# x86_64's prlimit64 and setgroups (perl has neither; the server refuses to start elsewhere).
my ($SYS_PRLIMIT64, $SYS_SETGROUPS, $SYS_PRCTL, $PR_SET_DUMPABLE) = (302, 116, 157, 4);
die "the Perl fork server needs x86_64\n" unless (POSIX::uname())[4] eq 'x86_64';
# It empties /tmp before each program: only ever inside its own sandbox (bwrap is its pid 1).
{
    my $comm = '';
    if (open(my $c, '<', '/proc/1/comm')) { sysread($c, $comm, 64); close($c); }
    die "the Perl fork server runs only in its sandbox (bwrap as pid 1)\n" unless $comm eq "bwrap\n";
}
my %RLIMIT = (CPU => 0, FSIZE => 1, DATA => 2, CORE => 4, NPROC => 6, NOFILE => 7, AS => 9);

open(my $CTL_IN, '<&', \*STDIN) or die;
open(my $CTL_OUT, '>&', \*STDOUT) or die;
$CTL_OUT->autoflush(1);
open(STDIN, '<', '/dev/null') or die;
open(STDOUT, '>', '/dev/null') or die;
my $json = JSON::PP->new->canonical;

sub setrlimit {
    my ($name, $soft, $hard) = @_;
    syscall($SYS_PRLIMIT64, 0, $RLIMIT{$name}, pack('Q<Q<', $soft, $hard), 0) == 0 or die "prlimit $name: $!";
}

sub uid_pids {
    my ($uid) = @_;
    opendir(my $d, '/proc') or return ();
    my @pids = grep { /\A\d+\z/ && ((stat("/proc/$_"))[4] // -1) == $uid } readdir($d);
    return @pids;
}

# Every process of the slot's uid killed, as the lone run's pid namespace ends with its program.
sub kill_uid {
    my ($uid) = @_;
    for (1 .. 200) {
        my @pids = uid_pids($uid);
        return unless @pids;
        kill 'KILL', @pids;
        select(undef, undef, undef, 0.005);
    }
}

sub empty_tmp {
    opendir(my $d, '/tmp') or return;
    File::Path::remove_tree(map { "/tmp/$_" } grep { $_ ne '.' && $_ ne '..' } readdir($d));
}

# SysV IPC objects earlier programs left (a lone run's IPC namespace ends with it): removed by
# `ipcrm --all` as the slot's uid, which owns them, when /proc/sysvipc lists any (fork/forkserve.h).
sub remove_ipc {
    my ($uid) = @_;
    my $left = 0;
    for my $list ('/proc/sysvipc/shm', '/proc/sysvipc/sem', '/proc/sysvipc/msg') {
        open(my $f, '<', $list) or next;
        <$f>;
        $left = 1 if defined <$f>;
    }
    return unless $left;
    my $pid = fork();
    if (defined $pid && $pid == 0) {
        syscall($SYS_SETGROUPS, 0, 0) == 0 or POSIX::_exit(120);
        POSIX::setgid($uid) or POSIX::_exit(120);
        POSIX::setuid($uid) or POSIX::_exit(120);
        open(STDOUT, '>', '/dev/null');
        open(STDERR, '>', '/dev/null');
        exec('/usr/bin/ipcrm', '--all') or POSIX::_exit(127);
    }
    waitpid($pid, 0) if $pid;
}

sub run_child {
    my ($req, $out_w, $err_w) = @_;
    open(STDOUT, '>&', $out_w) or POSIX::_exit(120);
    open(STDERR, '>&', $err_w) or POSIX::_exit(120);
    close($out_w);
    close($err_w);
    close($CTL_IN);
    close($CTL_OUT);
    STDOUT->autoflush(0);
    POSIX::setsid();
    chdir('/tmp') or POSIX::_exit(120);
    my $l = $req->{limits};
    setrlimit('CPU', $l->{cpu}, $l->{cpu} + 1);
    setrlimit($l->{memoryKind} eq 'data' ? 'DATA' : 'AS', $l->{memory}, $l->{memory});
    setrlimit('NPROC', $l->{processes}, $l->{processes});
    setrlimit('FSIZE', $l->{fileBytes}, $l->{fileBytes});
    setrlimit('NOFILE', $l->{openFiles}, $l->{openFiles});
    setrlimit('CORE', 0, 0);
    my $uid = $req->{uid};
    syscall($SYS_SETGROUPS, 0, 0) == 0 or POSIX::_exit(120);
    POSIX::setgid($uid) or POSIX::_exit(120);
    POSIX::setuid($uid) or POSIX::_exit(120);
    POSIX::_exit(120) unless $< == $uid && $> == $uid;
    # Dumpable again, as a program exec'd as the uid is: its /proc/self is its own (fork/forkserve.h).
    syscall($SYS_PRCTL, $PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 or POSIX::_exit(120);
    if ($req->{argv}) {
        # Exec mode (any language): the child becomes the lone run's command, in this warm sandbox.
        $SIG{CHLD} = 'DEFAULT';
        my @argv = @{ $req->{argv} };
        exec { $argv[0] } @argv;
        print STDERR "fork server: cannot run $argv[0]: $!\n";
        POSIX::_exit(127);
    }
    $0 = $PROGRAM;
    # How the program's last die ended: perl's own exit code for it, and whether it was a parse
    # error (no die handler called, or no frame of the program on the stack) rather than a die
    # the program ran into.
    my ($code, $parse) = (255, 1);
    local $SIG{__DIE__} = sub {
        # perl's own rule (my_failure_exit): errno, else $? >> 8, else 255, each as a byte.
        $code = (($! + 0) & 255) || (($? >> 8) & 255) || 255;
        my $ours = 0;
        for (my $i = 0; my @frame = caller($i); $i++) { $ours = 1 if $frame[1] eq $PROGRAM }
        $parse = !$ours;
    };
    # A fresh script's $? and $! (the server's are its last wait's): they decide a die's exit code.
    ($?, $!, $@) = (0, 0, '');
    package main;
    do $PROGRAM;
    package ForkServer;
    if ($@) {
        my $error = $@;
        print STDERR $error;
        print STDERR "Execution of $PROGRAM aborted due to compilation errors.\n" if $parse && $error !~ /compilation aborted/;
        $? = $code << 8;
        exit($code);
    }
    exit(0);
}

$SIG{CHLD} = sub { };
while (my $line = <$CTL_IN>) {
    my $req = $json->decode($line);
    my $text = '';
    # sysread, not <$f>: a die's message names the last handle read with <> ("<$f> line 1").
    if (open(my $f, '<:raw', $PROGRAM)) { 1 while sysread($f, $text, 65536, length $text); close($f); }
    if (!$req->{argv} && $text =~ $SCREEN) {
        print $CTL_OUT $json->encode({ alone => JSON::PP::true }), "\n";
        next;
    }
    my ($uid, $cap) = ($req->{uid}, $req->{cap});
    empty_tmp();
    remove_ipc($uid);
    pipe(my $out_r, my $out_w) or die;
    pipe(my $err_r, my $err_w) or die;
    my $started = Time::HiRes::time();
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        close($out_r);
        close($err_r);
        run_child($req, $out_w, $err_w);
    }
    close($out_w);
    close($err_w);
    my %kept = (out => '', err => '');
    my %total = (out => 0, err => 0);
    my %name = (fileno($out_r) => 'out', fileno($err_r) => 'err');
    my $select = IO::Select->new($out_r, $err_r);
    my $deadline = Time::HiRes::time() + $req->{timeoutMs} / 1000;
    my ($status, $timed_out);
    while (1) {
        if (!defined $status) {
            my $done = waitpid($pid, POSIX::WNOHANG());
            if ($done == $pid) {
                $status = $?;
                kill_uid($uid);
            } elsif (Time::HiRes::time() >= $deadline) {
                $timed_out = 1;
                kill_uid($uid);
                waitpid($pid, 0);
                $status = $?;
            }
        }
        # Done when the child is reaped and its pipes are at their end (in either order).
        last if defined $status && !$select->count;
        my $wait = defined $status ? 1 : $deadline - Time::HiRes::time();
        $wait = 0.05 if $wait > 0.05;
        $wait = 0 if $wait < 0;
        if (!$select->count) {
            select(undef, undef, undef, $wait);
            next;
        }
        for my $fh ($select->can_read($wait)) {
            my $n = sysread($fh, my $chunk, 65536);
            my $which = $name{ fileno($fh) };
            if (!$n) { $select->remove($fh); close($fh); next; }
            $total{$which} += $n;
            $kept{$which} .= substr($chunk, 0, $cap - length($kept{$which})) if length($kept{$which}) < $cap;
        }
    }
    my $signal = $timed_out ? 'SIGKILL' : ($status & 127) ? 'SIG' . ((split ' ', $Config::Config{sig_name})[$status & 127]) : undef;
    print $CTL_OUT $json->encode({
        exitCode => ($timed_out || ($status & 127)) ? undef : $status >> 8,
        signal => $signal,
        timedOut => $timed_out ? JSON::PP::true : JSON::PP::false,
        durationMs => (Time::HiRes::time() - $started) * 1000,
        stdout => MIME::Base64::encode_base64($kept{out}, ''),
        stderr => MIME::Base64::encode_base64($kept{err}, ''),
        stdoutBytes => $total{out},
        stderrBytes => $total{err},
    }), "\n";
}
POSIX::_exit(0);
