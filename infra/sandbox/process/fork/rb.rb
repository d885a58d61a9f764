# frozen_string_literal: true
# The Ruby fork server (../forkServer.ts says what it is for and how it is isolated): a warm
# ruby with test/unit loaded that, per request (one JSON line on fd 0), forks one child that
# becomes the program (/build/program.rb) as `ruby /build/program.rb` would run it, and answers
# one JSON line on fd 1: exit code or signal, time-out, the first `cap` bytes of stdout and stderr
# (base64) and their sizes. It runs as root in its own sandbox; each child drops to the slot's
# uid, with the lone run's limits, in a /tmp emptied before it starts.
require 'fiddle'
require 'fileutils'
require 'json'
require 'test/unit'
# What test/unit's autorunner loads when the tests run, loaded once here rather than per program.
require 'test/unit/collector/descendant'
require 'test/unit/code-snippet-fetcher'
require 'test/unit/fault-location-detector'
require 'test/unit/ui/console/testrunner'
require 'pp'

# It empties /tmp before each program: only ever inside its own sandbox (bwrap is its pid 1).
abort 'the Ruby fork server runs only in its sandbox (bwrap as pid 1)' unless (File.read('/proc/1/comm') rescue '') == "bwrap\n"

CTL_IN = $stdin.dup
CTL_OUT = $stdout.dup
CTL_OUT.sync = true
$stdin.reopen('/dev/null')
$stdout.reopen('/dev/null')
PROGRAM = '/build/program.rb'
# prctl(2) from libc (Ruby has no binding of its own): the child sets PR_SET_DUMPABLE after its uid.
PRCTL = Fiddle::Function.new(Fiddle.dlopen(nil)['prctl'], [Fiddle::TYPE_INT, Fiddle::TYPE_LONG, Fiddle::TYPE_LONG, Fiddle::TYPE_LONG, Fiddle::TYPE_LONG], Fiddle::TYPE_INT)

def uid_pids(uid)
  Dir.children('/proc').select do |e|
    e.match?(/\A\d+\z/) && File.stat("/proc/#{e}").uid == uid
  rescue SystemCallError
    false
  end.map(&:to_i)
end

# Every process of the slot's uid killed, as the lone run's pid namespace ends with its program.
def kill_uid(uid)
  200.times do
    pids = uid_pids(uid)
    return if pids.empty?
    pids.each { |p| Process.kill(:KILL, p) rescue nil }
    sleep 0.005
  end
end

def empty_tmp
  Dir.children('/tmp').each { |e| FileUtils.rm_rf("/tmp/#{e}") }
end

# SysV IPC objects earlier programs left (a lone run's IPC namespace ends with it): removed by
# `ipcrm --all` as the slot's uid, which owns them, when /proc/sysvipc lists any (fork/forkserve.h).
def remove_ipc(uid)
  left = %w[shm sem msg].any? { |k| (File.readlines("/proc/sysvipc/#{k}").size > 1 rescue false) }
  return unless left

  pid = fork do
    Process.groups = []
    Process::Sys.setresgid(uid, uid, uid)
    Process::Sys.setresuid(uid, uid, uid)
    exec('/usr/bin/ipcrm', '--all', out: File::NULL, err: File::NULL)
  end
  Process.wait(pid)
end

def reader(io, cap)
  Thread.new do
    kept = +''.b
    total = 0
    while (chunk = (io.readpartial(65_536) rescue nil))
      total += chunk.bytesize
      kept << chunk.byteslice(0, cap - kept.bytesize) if kept.bytesize < cap
    end
    io.close
    [kept, total]
  end
end

# The program's own frames only, its top level named as a main script's.
def program_backtrace(backtrace)
  last = backtrace.rindex { |l| l.start_with?("#{PROGRAM}:") && l.end_with?('<top (required)>\'') }
  return backtrace unless last
  backtrace[0..last].each_with_index.map { |l, i| i == last ? l.sub('<top (required)>', '<main>') : l }
end

def run_child(req, out_w, err_w)
  $stdout.reopen(out_w)
  $stderr.reopen(err_w)
  $stdout.sync = false
  $stderr.sync = true
  [out_w, err_w, CTL_IN, CTL_OUT].each(&:close)
  Process.setsid
  Dir.chdir('/tmp')
  l = req['limits']
  Process.setrlimit(:CPU, l['cpu'], l['cpu'] + 1)
  Process.setrlimit(l['memoryKind'] == 'data' ? :DATA : :AS, l['memory'])
  Process.setrlimit(:NPROC, l['processes'])
  Process.setrlimit(:FSIZE, l['fileBytes'])
  Process.setrlimit(:NOFILE, l['openFiles'])
  Process.setrlimit(:CORE, 0)
  uid = req['uid']
  Process.groups = []
  Process::Sys.setresgid(uid, uid, uid)
  Process::Sys.setresuid(uid, uid, uid)
  # Dumpable again (PR_SET_DUMPABLE), as a program exec'd as the uid is: its /proc/self is its own (fork/forkserve.h).
  exit!(120) unless PRCTL.call(4, 1, 0, 0, 0).zero?
  $0 = PROGRAM
  begin
    load(PROGRAM)
  rescue SyntaxError => e
    # As ruby reports a script that does not parse: the message alone, nothing run at exit.
    $stderr.write(e.message.end_with?("\n") ? e.message : "#{e.message}\n")
    exit!(1)
  rescue SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException
    # No frames at all (NoMemoryError's): ruby names the script, as `ruby program.rb` prints it.
    frames = program_backtrace(e.backtrace || [])
    e.set_backtrace(frames.empty? ? [PROGRAM] : frames)
    raise e
  end
end

while (line = CTL_IN.gets)
  req = JSON.parse(line)
  uid = req['uid']
  cap = req['cap']
  empty_tmp
  remove_ipc(uid)
  out_r, out_w = IO.pipe
  err_r, err_w = IO.pipe
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  pid = fork { run_child(req, out_w, err_w) }
  out_w.close
  err_w.close
  outs = reader(out_r, cap)
  errs = reader(err_r, cap)
  waiter = Thread.new { Process.wait2(pid)[1] }
  timed_out = waiter.join(req['timeoutMs'] / 1000.0).nil?
  kill_uid(uid)
  status = waiter.value
  ms = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000
  out, out_total = outs.value
  err, err_total = errs.value
  signal = timed_out ? 'SIGKILL' : (status.termsig && "SIG#{Signal.signame(status.termsig)}")
  CTL_OUT.write(JSON.generate({
    exitCode: timed_out || status.termsig ? nil : status.exitstatus, signal: signal, timedOut: timed_out,
    durationMs: ms, stdout: [out].pack('m0'), stderr: [err].pack('m0'), stdoutBytes: out_total, stderrBytes: err_total
  }) + "\n")
end
exit!(0)
