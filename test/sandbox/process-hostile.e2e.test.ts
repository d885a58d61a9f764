/**
 * Hostile programs in every process-run language (MultiPL-E's js, ts, go_test.go, rs, java, cpp and
 * its further languages lua, rb, php, pl, sh, r, rkt, d, jl, swift, scala, cs), on the real toolchains and the real sandbox: an
 * infinite loop, a spawn bomb, a memory bomb, a gigabyte of output, a connection to loopback
 * ports, reading the worker's environment, writing outside its directory, a child that outlives
 * the program. Each must be contained and reported,
 * and leave no process of the samples' uids and no file on the host behind. All languages run at
 * once (one executor each), so the whole file takes about as long as its slowest language.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor, TOOLCHAINS } from '../../infra/sandbox/toolchainRegistry.js';
import { MAY_BE_MISSING, runnableOf } from '../support/multiple-rows.js';

const SECRET_NAME = 'EXPLORA_PROCESS_HOSTILE_SECRET';
const SECRET = `s3cr3t-${randomBytes(12).toString('hex')}`;
const PLANT = `planted-${randomBytes(6).toString('hex')}`;
const TIMEOUT_MS = 1_000;
const MAX_OUTPUT = 4096;
const LIMITS = { timeoutMs: TIMEOUT_MS, maxProcesses: 16, maxOutputBytes: MAX_OUTPUT, memoryBytes: 512 * 1024 * 1024 };
const AMPLE = { ...LIMITS, timeoutMs: 15_000 };
// A memory bomb is given far more time than it needs (3 s alone here): with every language's
// programs running at once on two loaded cores, an interpreter can take longer than 15 s to fill 512 MB.
const MEMORY_AMPLE = { ...LIMITS, timeoutMs: 90_000 };
// A gigabyte of output may end at its time limit (go, rs, java, sh, rkt, d and cs write 170-980 MB
// in 15 s alone here), but it must have written past the cap by then: in a loaded CI run Racket had
// not written its first byte after 15 s. 60 s makes "past the cap" certain without waiting for all of it.
const OUTPUT_AMPLE = { ...LIMITS, timeoutMs: 60_000 };

type Kind = 'loop' | 'spawnBomb' | 'memoryBomb' | 'output' | 'network' | 'environment' | 'writeOutside' | 'daemon';

/** Paths a program tries to write: the read-only build dir, system dirs, the root, the host's tmp. */
const TARGETS = ['/build/x', `/etc/${PLANT}`, `/usr/${PLANT}`, `/${PLANT}`, join(tmpdir(), PLANT)];

function programs(port: number): Record<ProcessLanguageId, Record<Kind, string>> {
  const ports = `[${port}, 7233, 8333]`;
  const js = {
    loop: 'while (true) {}',
    spawnBomb:
      "const cp = require('child_process');\nfor (;;) { try { cp.spawn('/bin/sleep', ['100']).on('error', () => {}); } catch (e) {} }",
    memoryBomb: 'const a = [];\nfor (;;) a.push(new Array(1e6).fill(1.5));',
    output: "const b = Buffer.alloc(1 << 20, 120);\nconst fs = require('fs');\nfor (let i = 0; i < 1024; i++) fs.writeSync(1, b);",
    network: `const net = require('net');\nlet left = 3;\nconst out = {};\nfor (const p of ${ports}) {\n  const s = net.connect(p, '127.0.0.1');\n  s.on('connect', () => { out[p] = 'CONNECTED'; s.destroy(); if (--left === 0) console.log(JSON.stringify(out)); });\n  s.on('error', (e) => { out[p] = e.code; if (--left === 0) console.log(JSON.stringify(out)); });\n}`,
    environment:
      "console.log(JSON.stringify(process.env));\ntry { console.log(require('fs').readFileSync('/proc/1/environ', 'utf8')); } catch (e) {}",
    writeOutside: `const fs = require('fs');\nfor (const p of ${JSON.stringify(TARGETS)}) { try { fs.writeFileSync(p, 'x'); console.log('WROTE ' + p); } catch (e) { console.log('refused ' + p); } }`,
    daemon:
      "const cp = require('child_process');\nconst c = cp.spawn('/bin/sleep', ['30'], { detached: true, stdio: 'ignore' });\nc.unref();\nconsole.log('spawned ' + c.pid);",
  };
  const ts = Object.fromEntries(
    Object.entries(js).map(([k, v]) => [k, `declare var require: any;\ndeclare var process: any;\ndeclare var Buffer: any;\n${v}`]),
  ) as Record<Kind, string>;
  const go = (imports: string[], body: string) =>
    `package hostile_test\n\nimport (\n${['testing', ...imports].map((i) => `\t"${i}"`).join('\n')}\n)\n\nfunc TestHostile(t *testing.T) {\n${body}\n}\n`;
  const java = (body: string) =>
    `import java.util.*;\nimport java.io.*;\nimport java.net.*;\nimport java.nio.file.*;\nclass Problem {\n    public static void main(String[] args) throws Exception {\n${body}\n    }\n}\n`;
  const rs = (body: string) => `#![allow(unused)]\nuse std::io::Write;\nfn main() {\n${body}\n}\n`;
  const scala = (body: string) =>
    `import java.io._\nimport java.net._\nimport java.nio.file._\nobject Problem {\n    def main(args: Array[String]) : Unit = {\n${body}\n    }\n}\n`;
  const cs = (body: string) =>
    `using System;\nusing System.IO;\nusing System.Collections.Generic;\nusing System.Diagnostics;\nclass Problem {\n    public static void Main(string[] args) {\n${body}\n    }\n}\n`;
  const cpp = (body: string) =>
    `#include <bits/stdc++.h>\n#include <unistd.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\nextern char **environ;\nint main() {\n${body}\n}\n`;
  return {
    js,
    ts,
    'go_test.go': {
      loop: go([], '\tfor {\n\t}'),
      spawnBomb: go(['os/exec'], '\tfor {\n\t\t_ = exec.Command("/bin/sleep", "100").Start()\n\t}'),
      memoryBomb: go(
        [],
        '\tvar s [][]byte\n\tfor {\n\t\tb := make([]byte, 10<<20)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\ts = append(s, b)\n\t}',
      ),
      output: go(['os'], '\tb := make([]byte, 1<<20)\n\tfor i := 0; i < 1024; i++ {\n\t\tos.Stdout.Write(b)\n\t}'),
      network: go(
        ['fmt', 'net', 'time'],
        `\tfor _, p := range []int${ports.replace('[', '{').replace(']', '}')} {\n\t\tc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), time.Second)\n\t\tif err == nil {\n\t\t\tfmt.Println(p, "CONNECTED")\n\t\t\tc.Close()\n\t\t} else {\n\t\t\tfmt.Println(p, err)\n\t\t}\n\t}`,
      ),
      environment: go(['fmt', 'os'], '\tfmt.Println(os.Environ())\n\tb, _ := os.ReadFile("/proc/1/environ")\n\tfmt.Println(string(b))'),
      writeOutside: go(
        ['fmt', 'os'],
        `\tfor _, p := range []string{${TARGETS.map((t) => JSON.stringify(t)).join(', ')}} {\n\t\tif err := os.WriteFile(p, []byte("x"), 0644); err == nil {\n\t\t\tfmt.Println("WROTE", p)\n\t\t} else {\n\t\t\tfmt.Println("refused", p)\n\t\t}\n\t}`,
      ),
      daemon: go(
        ['fmt', 'os/exec', 'syscall'],
        '\tc := exec.Command("/bin/sleep", "30")\n\tc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}\n\tif err := c.Start(); err != nil {\n\t\tt.Fatal(err)\n\t}\n\tfmt.Println("spawned", c.Process.Pid)',
      ),
    },
    rs: {
      loop: rs('    loop {}'),
      spawnBomb: rs('    loop { let _ = std::process::Command::new("/bin/sleep").arg("100").spawn(); }'),
      memoryBomb: rs('    let mut v: Vec<Vec<u8>> = Vec::new();\n    loop { v.push(vec![1u8; 10 << 20]); }'),
      output: rs(
        "    let b = vec![b'x'; 1 << 20];\n    let mut out = std::io::stdout().lock();\n    for _ in 0..1024 { let _ = out.write_all(&b); }",
      ),
      network: rs(
        `    for p in ${ports} {\n        let addr: std::net::SocketAddr = format!("127.0.0.1:{}", p).parse().unwrap();\n        match std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)) {\n            Ok(_) => println!("{} CONNECTED", p),\n            Err(e) => println!("{} {}", p, e),\n        }\n    }`,
      ),
      environment: rs(
        '    for (k, v) in std::env::vars() { println!("{}={}", k, v); }\n    println!("{}", std::fs::read_to_string("/proc/1/environ").unwrap_or_default());',
      ),
      writeOutside: rs(
        `    for p in [${TARGETS.map((t) => JSON.stringify(t)).join(', ')}] {\n        match std::fs::write(p, "x") { Ok(_) => println!("WROTE {}", p), Err(_) => println!("refused {}", p) }\n    }`,
      ),
      daemon: rs(
        '    let c = std::process::Command::new("/usr/bin/setsid").arg("/bin/sleep").arg("30").spawn().unwrap();\n    println!("spawned {}", c.id());',
      ),
    },
    java: {
      loop: java('        while (true) {}'),
      spawnBomb: java('        while (true) { try { new ProcessBuilder("/bin/sleep", "100").start(); } catch (Exception e) {} }'),
      memoryBomb: java('        List<long[]> l = new ArrayList<>();\n        while (true) l.add(new long[1 << 20]);'),
      output: java(
        '        byte[] b = new byte[1 << 20];\n        Arrays.fill(b, (byte) 120);\n        FileOutputStream out = new FileOutputStream(FileDescriptor.out);\n        for (int i = 0; i < 1024; i++) out.write(b);',
      ),
      network: java(
        `        for (int p : new int[]{${port}, 7233, 8333}) {\n            try (Socket s = new Socket()) { s.connect(new InetSocketAddress("127.0.0.1", p), 1000); System.out.println(p + " CONNECTED"); }\n            catch (IOException e) { System.out.println(p + " " + e); }\n        }`,
      ),
      environment: java(
        '        System.out.println(System.getenv());\n        try { System.out.println(new String(Files.readAllBytes(Paths.get("/proc/1/environ")))); } catch (IOException e) {}',
      ),
      writeOutside: java(
        `        for (String p : new String[]{${TARGETS.map((t) => JSON.stringify(t)).join(', ')}}) {\n            try { Files.write(Paths.get(p), "x".getBytes()); System.out.println("WROTE " + p); } catch (Exception e) { System.out.println("refused " + p); }\n        }`,
      ),
      daemon: java(
        '        Process c = new ProcessBuilder("/usr/bin/setsid", "/bin/sleep", "30").start();\n        System.out.println("spawned " + c.pid());',
      ),
    },
    cpp: {
      loop: cpp('    volatile long i = 0;\n    while (true) i++;'),
      spawnBomb: cpp('    while (true) fork();'),
      memoryBomb: cpp('    std::vector<std::vector<char>> v;\n    while (true) v.emplace_back(10 << 20, 1);'),
      output: cpp("    std::string b(1 << 20, 'x');\n    for (int i = 0; i < 1024; i++) fwrite(b.data(), 1, b.size(), stdout);"),
      network: cpp(
        `    for (int p : ${ports.replace('[', '{').replace(']', '}')}) {\n        int s = socket(AF_INET, SOCK_STREAM, 0);\n        sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(p); inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);\n        if (connect(s, (sockaddr*)&a, sizeof a) == 0) printf("%d CONNECTED\\n", p); else printf("%d %s\\n", p, strerror(errno));\n        close(s);\n    }`,
      ),
      environment: cpp(
        '    for (char **e = environ; *e; e++) puts(*e);\n    std::ifstream f("/proc/1/environ"); std::string s((std::istreambuf_iterator<char>(f)), {}); puts(s.c_str());',
      ),
      writeOutside: cpp(
        `    for (const char *p : {${TARGETS.map((t) => JSON.stringify(t)).join(', ')}}) {\n        FILE *f = fopen(p, "w");\n        if (f) { fputs("x", f); fclose(f); printf("WROTE %s\\n", p); } else printf("refused %s\\n", p);\n    }`,
      ),
      daemon: cpp(
        '    pid_t c = fork();\n    if (c == 0) { setsid(); execl("/bin/sleep", "sleep", "30", (char*)0); _exit(1); }\n    printf("spawned %d\\n", c);',
      ),
    },
    lua: {
      loop: 'while true do end',
      spawnBomb: "while true do os.execute('/bin/sleep 100 &') end",
      memoryBomb: "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 10 * 1024 * 1024) .. #t end",
      output: "local b = string.rep('x', 1 << 20)\nfor i = 1, 1024 do io.stdout:write(b) end",
      // Lua has no sockets of its own: it tries through bash's /dev/tcp.
      network: `for _, p in ipairs({${port}, 7233, 8333}) do\n  local ok = os.execute('bash -c "exec 3<>/dev/tcp/127.0.0.1/' .. p .. '" 2>/dev/null')\n  print(p, ok and 'CONNECTED' or 'refused')\nend`,
      environment:
        "print((io.open('/proc/self/environ'):read('a'):gsub('%z', '\\n')))\nlocal f = io.open('/proc/1/environ')\nif f then print(f:read('a')) end",
      writeOutside: `for _, p in ipairs({${TARGETS.map((t) => JSON.stringify(t)).join(', ')}}) do\n  local f = io.open(p, 'w')\n  if f then f:write('x') f:close() print('WROTE ' .. p) else print('refused ' .. p) end\nend`,
      daemon: "print('spawned ' .. io.popen('setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!'):read('l'))",
    },
    rb: {
      loop: 'loop {}',
      spawnBomb: "loop do\n  begin\n    Process.spawn('/bin/sleep', '100')\n  rescue StandardError\n  end\nend",
      memoryBomb: "a = []\nloop { a << 'x' * (10 << 20) }",
      output: "b = 'x' * (1 << 20)\n1024.times { $stdout.write(b) }",
      network: `require 'socket'\n${ports}.each do |p|\n  begin\n    TCPSocket.new('127.0.0.1', p).close\n    puts "#{p} CONNECTED"\n  rescue StandardError => e\n    puts "#{p} #{e.class}"\n  end\nend`,
      environment: "puts ENV.to_h.inspect\nputs File.read('/proc/1/environ') rescue nil",
      writeOutside: `${JSON.stringify(TARGETS)}.each do |p|\n  begin\n    File.write(p, 'x')\n    puts "WROTE #{p}"\n  rescue StandardError\n    puts "refused #{p}"\n  end\nend`,
      daemon: "pid = Process.spawn('/usr/bin/setsid', '/bin/sleep', '30')\nputs \"spawned #{pid}\"",
    },
    php: {
      loop: '<?php\nwhile (true) {}',
      spawnBomb: "<?php\nwhile (true) { @exec('/bin/sleep 100 > /dev/null 2>&1 &'); }",
      memoryBomb: "<?php\n$a = [];\nwhile (true) $a[] = str_repeat('x', 10 << 20);",
      output: "<?php\n$b = str_repeat('x', 1 << 20);\nfor ($i = 0; $i < 1024; $i++) fwrite(STDOUT, $b);",
      network: `<?php\nforeach (${ports} as $p) {\n    $s = @fsockopen('127.0.0.1', $p, $errno, $errstr, 1);\n    if ($s) { echo "$p CONNECTED\\n"; fclose($s); } else { echo "$p $errstr\\n"; }\n}`,
      environment: "<?php\nvar_export(getenv());\necho @file_get_contents('/proc/1/environ');",
      writeOutside: `<?php\nforeach (${JSON.stringify(TARGETS)} as $p) {\n    if (@file_put_contents($p, 'x') !== false) echo "WROTE $p\\n"; else echo "refused $p\\n";\n}`,
      daemon: '<?php\n$pid = trim(shell_exec(\'setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!\'));\necho "spawned $pid\\n";',
    },
    pl: {
      loop: '1 while 1;',
      spawnBomb: "while (1) { my $p = fork(); if (defined $p && $p == 0) { exec('/bin/sleep', '100'); } }",
      memoryBomb: "my @a;\npush @a, 'x' x (10 << 20) while 1;",
      output: "my $b = 'x' x (1 << 20);\nsyswrite(STDOUT, $b) for 1 .. 1024;",
      network: `use IO::Socket::INET;\nfor my $p (${port}, 7233, 8333) {\n    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $p, Timeout => 1);\n    print $s ? "$p CONNECTED\\n" : "$p $!\\n";\n}`,
      environment: "print \"$_=$ENV{$_}\\n\" for keys %ENV;\nif (open(my $f, '<', '/proc/1/environ')) { local $/; print <$f>; }",
      writeOutside: `for my $p (${TARGETS.map((t) => JSON.stringify(t)).join(', ')}) {\n    if (open(my $f, '>', $p)) { print $f 'x'; close $f; print "WROTE $p\\n"; } else { print "refused $p\\n"; }\n}`,
      daemon: "my $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nprint \"spawned $c\\n\";",
    },
    sh: {
      loop: 'while :; do :; done',
      spawnBomb: 'while :; do /bin/sleep 100 & done',
      memoryBomb: 'a=x\nwhile :; do a=$a$a; done',
      output: "head -c 1073741824 /dev/zero | tr '\\0' x",
      network: `for p in ${port} 7233 8333; do\n  if (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p CONNECTED"; else echo "$p refused"; fi\ndone`,
      environment: 'env\ncat /proc/1/environ 2>/dev/null || true',
      writeOutside: `for p in ${TARGETS.join(' ')}; do\n  if (echo x > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "refused $p"; fi\ndone`,
      daemon: 'setsid /bin/sleep 30 > /dev/null 2>&1 &\necho "spawned $!"',
    },
    r: {
      loop: 'repeat {}',
      spawnBomb: "repeat { try(system('/bin/sleep 100', wait = FALSE), silent = TRUE) }",
      memoryBomb: 'a <- list()\ni <- 0\nrepeat { i <- i + 1; a[[i]] <- numeric(1e7) + i }',
      output: "b <- strrep('x', 2^20)\nfor (i in 1:1024) cat(b)",
      network: `for (p in c(${port}, 7233, 8333)) {\n  r <- tryCatch({ s <- socketConnection('127.0.0.1', p, blocking = TRUE, timeout = 1); close(s); 'CONNECTED' }, error = function(e) 'refused', warning = function(w) 'refused')\n  cat(p, r, '\\n')\n}`,
      environment: "print(Sys.getenv())\ntry(cat(readLines('/proc/1/environ', warn = FALSE)), silent = TRUE)",
      writeOutside: `for (p in c(${TARGETS.map((t) => JSON.stringify(t)).join(', ')})) {\n  ok <- tryCatch({ writeLines('x', p); TRUE }, error = function(e) FALSE, warning = function(w) FALSE)\n  cat(if (ok) 'WROTE' else 'refused', p, '\\n')\n}`,
      daemon: "invisible(system('setsid /bin/sleep 30 > /dev/null 2>&1 & echo spawned $!'))",
    },
    rkt: {
      loop: '#lang racket\n(let loop () (loop))',
      spawnBomb: '#lang racket\n(let loop () (with-handlers ([exn:fail? void]) (process "/bin/sleep 100")) (loop))',
      memoryBomb:
        '#lang racket\n(define v (box (list)))\n(let loop () (set-box! v (cons (make-bytes (* 10 1024 1024) 1) (unbox v))) (loop))',
      output: '#lang racket\n(define b (make-bytes (* 1024 1024) 120))\n(for ([i 1024]) (write-bytes b))',
      network: `#lang racket\n(for ([p (list ${port} 7233 8333)])\n  (printf "~a ~a\\n" p (with-handlers ([exn:fail? (lambda (e) "refused")]) (tcp-connect "127.0.0.1" p) "CONNECTED")))`,
      environment:
        '#lang racket\n(for ([n (environment-variables-names (current-environment-variables))]) (printf "~a=~a\\n" n (getenv (bytes->string/utf-8 n))))\n(with-handlers ([exn:fail? void]) (display (file->string "/proc/1/environ")))',
      writeOutside: `#lang racket\n(for ([p (list ${TARGETS.map((t) => JSON.stringify(t)).join(' ')})])\n  (if (with-handlers ([exn:fail? (lambda (e) #f)]) (with-output-to-file p (lambda () (display "x")) #:exists 'replace) #t)\n      (printf "WROTE ~a\\n" p)\n      (printf "refused ~a\\n" p)))`,
      daemon:
        '#lang racket\n(define-values (sp out in err) (subprocess #f #f #f "/usr/bin/setsid" "/bin/sleep" "30"))\n(printf "spawned ~a\\n" (subprocess-pid sp))',
    },
    d: {
      loop: 'void main() { while (true) {} }',
      spawnBomb:
        'import std.process;\nvoid main() { while (true) { try { spawnProcess(["/bin/sleep", "100"]); } catch (Exception e) {} } }',
      memoryBomb: 'void main() { long[][] a; while (true) a ~= new long[1 << 20]; }',
      output: "import std.stdio;\nvoid main() { auto b = new char[1 << 20]; b[] = 'x'; foreach (i; 0 .. 1024) stdout.rawWrite(b); }",
      network: `import std.socket, std.stdio;\nvoid main() {\n    foreach (p; ${ports}) {\n        try { auto s = new TcpSocket(new InternetAddress("127.0.0.1", cast(ushort) p)); writeln(p, " CONNECTED"); s.close(); }\n        catch (Exception e) { writeln(p, " ", e.msg); }\n    }\n}`,
      environment:
        'import std.process, std.stdio, std.file;\nvoid main() {\n    foreach (k, v; environment.toAA()) writeln(k, "=", v);\n    try { writeln(readText("/proc/1/environ")); } catch (Exception e) {}\n}',
      writeOutside: `import std.file, std.stdio;\nvoid main() {\n    foreach (p; ${JSON.stringify(TARGETS)}) {\n        try { std.file.write(p, "x"); writeln("WROTE ", p); } catch (Exception e) { writeln("refused ", p); }\n    }\n}`,
      daemon:
        'import std.process, std.stdio;\nvoid main() { auto pid = spawnProcess(["/usr/bin/setsid", "/bin/sleep", "30"]); writeln("spawned ", pid.processID); }',
    },
    scala: {
      loop: scala('        while (true) {}'),
      spawnBomb: scala('        while (true) { try { new ProcessBuilder("/bin/sleep", "100").start() } catch { case e: Exception => } }'),
      memoryBomb: scala('        val l = new java.util.ArrayList[Array[Long]]()\n        while (true) l.add(new Array[Long](1 << 20))'),
      output: scala(
        '        val b = Array.fill[Byte](1 << 20)(120)\n        val out = new FileOutputStream(FileDescriptor.out)\n        for (i <- 0 until 1024) out.write(b)',
      ),
      network: scala(
        `        for (p <- List(${port}, 7233, 8333)) {\n            try { val s = new Socket(); s.connect(new InetSocketAddress("127.0.0.1", p), 1000); println(p + " CONNECTED"); s.close() }\n            catch { case e: IOException => println(p + " " + e) }\n        }`,
      ),
      environment: scala(
        '        println(System.getenv())\n        try { println(new String(Files.readAllBytes(Paths.get("/proc/1/environ")))) } catch { case e: IOException => }',
      ),
      writeOutside: scala(
        `        for (p <- List(${TARGETS.map((t) => JSON.stringify(t)).join(', ')})) {\n            try { Files.write(Paths.get(p), Array[Byte](120)); println("WROTE " + p) } catch { case e: Exception => println("refused " + p) }\n        }`,
      ),
      daemon: scala(
        '        val p = new ProcessBuilder("/usr/bin/setsid", "/bin/sleep", "30").start()\n        println("spawned " + p.pid())',
      ),
    },
    cs: {
      loop: cs('        while (true) {}'),
      spawnBomb: cs('        while (true) { try { Process.Start("/bin/sleep", "100"); } catch (Exception) {} }'),
      memoryBomb: cs('        var l = new List<long[]>();\n        while (true) l.Add(new long[1 << 20]);'),
      output: cs(
        '        var b = new byte[1 << 20];\n        for (int i = 0; i < b.Length; i++) b[i] = 120;\n        var o = Console.OpenStandardOutput();\n        for (int i = 0; i < 1024; i++) o.Write(b, 0, b.Length);',
      ),
      network: cs(
        `        foreach (var p in new[] { ${port}, 7233, 8333 }) {\n            try { var c = new System.Net.Sockets.TcpClient(); c.Connect("127.0.0.1", p); Console.WriteLine(p + " CONNECTED"); c.Close(); }\n            catch (Exception e) { Console.WriteLine(p + " " + e.Message); }\n        }`,
      ),
      environment: cs(
        '        foreach (System.Collections.DictionaryEntry e in Environment.GetEnvironmentVariables()) Console.WriteLine(e.Key + "=" + e.Value);\n        try { Console.WriteLine(File.ReadAllText("/proc/1/environ")); } catch (Exception) {}',
      ),
      writeOutside: cs(
        `        foreach (var p in new[] { ${TARGETS.map((t) => JSON.stringify(t)).join(', ')} }) {\n            try { File.WriteAllText(p, "x"); Console.WriteLine("WROTE " + p); } catch (Exception) { Console.WriteLine("refused " + p); }\n        }`,
      ),
      daemon: cs('        var p = Process.Start("/usr/bin/setsid", "/bin/sleep 30");\n        Console.WriteLine("spawned " + p.Id);'),
    },
    jl: {
      loop: 'while true end',
      spawnBomb: 'while true\n    try run(`/bin/sleep 100`, wait=false) catch end\nend',
      memoryBomb: 'a = []\nwhile true push!(a, ones(UInt8, 10 << 20)) end',
      output: 'b = repeat("x", 1 << 20)\nfor i in 1:1024 write(stdout, b) end',
      network: `using Sockets\nfor p in ${ports}\n    try connect("127.0.0.1", p); println(p, " CONNECTED") catch e println(p, " ", e) end\nend`,
      environment: 'for (k, v) in ENV println(k, "=", v) end\ntry print(read("/proc/1/environ", String)) catch end',
      writeOutside: `for p in ${JSON.stringify(TARGETS)}\n    try write(p, "x"); println("WROTE ", p) catch; println("refused ", p) end\nend`,
      daemon: 'p = run(`/usr/bin/setsid /bin/sleep 30`, wait=false)\nprintln("spawned ", getpid(p))',
    },
    swift: {
      loop: 'while true {}',
      spawnBomb:
        'import Foundation\nwhile true { let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/sleep"); p.arguments = ["100"]; try? p.run() }',
      memoryBomb: 'var a: [[UInt8]] = []\nwhile true { a.append([UInt8](repeating: 1, count: 10 << 20)) }',
      output: 'import Foundation\nlet b = Data(repeating: 120, count: 1 << 20)\nfor _ in 0..<1024 { FileHandle.standardOutput.write(b) }',
      network: `import Foundation\nfor p in ${ports} {\n    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)\n    var a = sockaddr_in()\n    a.sin_family = sa_family_t(AF_INET)\n    a.sin_port = in_port_t(UInt16(p).bigEndian)\n    a.sin_addr.s_addr = inet_addr("127.0.0.1")\n    let r = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }\n    print(p, r == 0 ? "CONNECTED" : "refused")\n    close(s)\n}`,
      environment: 'import Foundation\nfor (k, v) in ProcessInfo.processInfo.environment { print("\\(k)=\\(v)") }',
      writeOutside: `import Foundation\nfor p in ${JSON.stringify(TARGETS)} {\n    if FileManager.default.createFile(atPath: p, contents: Data("x".utf8)) { print("WROTE \\(p)") } else { print("refused \\(p)") }\n}`,
      daemon:
        'import Foundation\nlet p = Process()\np.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")\np.arguments = ["/bin/sleep", "30"]\ntry! p.run()\nprint("spawned \\(p.processIdentifier)")',
    },
  };
}

/** Every process-run language whose toolchain is here (test/support/multiple-rows.ts's MAY_BE_MISSING says which may not be). */
const LANGUAGES = await runnableOf(Object.keys(TOOLCHAINS) as ProcessLanguageId[]);
const executors = new Map<ProcessLanguageId, ProcessExecutor>();
const results = new Map<string, ExecutionResult>();
let connections = 0;
let server: Server;

/** Live processes whose uid is one of the executors' sample uids. */
function sampleProcesses(): number[] {
  const ranges = [...executors.values()].map((e) => e.uidRange);
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const uid = statSync(`/proc/${e}`).uid;
        return ranges.some(([lo, hi]) => uid >= lo && uid <= hi);
      } catch {
        return false;
      }
    })
    .map(Number);
}

beforeAll(async () => {
  process.env[SECRET_NAME] = SECRET;
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const all = programs(port);
  // Every language at once: two samples per language at a time, all languages side by side.
  await Promise.all(
    LANGUAGES.map(async (language) => {
      const executor = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS });
      executors.set(language, executor);
      await executor.start();
      await Promise.all(
        (Object.entries(all[language]) as Array<[Kind, string]>).map(async ([kind, program]) => {
          const limits =
            kind === 'loop' || kind === 'spawnBomb'
              ? LIMITS
              : kind === 'memoryBomb'
                ? MEMORY_AMPLE
                : kind === 'output'
                  ? OUTPUT_AMPLE
                  : AMPLE;
          results.set(`${language}/${kind}`, await executor.run({ id: `${language}/${kind}`, program, limits }));
        }),
      );
    }),
  );
}, 240_000);

afterAll(async () => {
  server?.close();
  delete process.env[SECRET_NAME];
  await Promise.all([...executors.values()].map((e) => e.close()));
});

function result(language: ProcessLanguageId, kind: Kind): ExecutionResult {
  const r = results.get(`${language}/${kind}`);
  if (!r) throw new Error(`no result for ${language}/${kind}`);
  return r;
}

describe.each(LANGUAGES)('hostile %s programs are contained', (language) => {
  it('infinite loop: timeout, at the time limit', () => {
    const r = result(language, 'loop');
    expect(r.status, JSON.stringify(r)).toBe('timeout');
    expect(r.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
  });

  it('spawn bomb: never a pass, and not one of its processes survives', () => {
    const r = result(language, 'spawnBomb');
    expect(r.status, JSON.stringify(r)).not.toBe('passed');
    expect(r.survivors ?? 0).toBe(0);
  });

  it('memory bomb: stopped at the memory limit (oom), never a pass', () => {
    const r = result(language, 'memoryBomb');
    expect(r.status, `${r.status}: ${r.stderr.slice(0, 600)}`).toBe('oom');
  });

  it('1 GB of output: captured output is capped, the rest counted and dropped', () => {
    const r = result(language, 'output');
    expect(['passed', 'timeout'], JSON.stringify({ ...r, stdout: undefined })).toContain(r.status);
    const seen = JSON.stringify({ ...r, stdout: r.stdout.length, stderr: r.stderr.slice(0, 300) });
    expect(r.stdout.length, seen).toBe(MAX_OUTPUT);
    expect(r.stdoutBytes, seen).toBeGreaterThan(MAX_OUTPUT);
    // All of it counted (Go's test binary adds its own "PASS" line).
    if (r.status === 'passed') expect(r.stdoutBytes).toBeGreaterThanOrEqual(1024 * 1024 * 1024);
  });

  it('no network: loopback ports (a listener of this test, Temporal, S3) are unreachable', () => {
    const r = result(language, 'network');
    expect(r.status, JSON.stringify(r)).toBe('passed');
    expect(r.stdout).not.toMatch(/CONNECTED/);
    expect(r.stdout.trim()).not.toBe('');
  });

  it("the worker's environment is invisible", () => {
    const r = result(language, 'environment');
    expect(r.status, JSON.stringify(r)).toBe('passed');
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).not.toContain(SECRET_NAME);
    expect(r.stdout).not.toMatch(/TEMPORAL|AWS_|S3_|HOME=\/root/);
    expect(r.stdout).toContain('PATH');
  });

  it('writing outside its directory fails; the host never sees the file', () => {
    const r = result(language, 'writeOutside');
    expect(r.status, JSON.stringify(r)).toBe('passed');
    for (const target of TARGETS.slice(0, 4)) expect(r.stdout).toContain(`refused ${target}`);
    for (const target of TARGETS) expect(existsSync(target), target).toBe(false);
  });

  it('a child that outlives the program (a new session, sleeping) is killed with it', () => {
    const r = result(language, 'daemon');
    expect(r.status, JSON.stringify(r)).toBe('passed');
    expect(r.stdout).toMatch(/spawned \d+/);
    expect(r.survivors ?? 0).toBe(0);
  });
});

describe('after every hostile program', () => {
  it('every language ran but those whose toolchain this machine may lack (Julia, Swift)', () => {
    for (const language of Object.keys(TOOLCHAINS) as ProcessLanguageId[])
      if (!LANGUAGES.includes(language)) expect(MAY_BE_MISSING).toContain(language);
  });

  it('no process of any sample uid is left, and no connection reached the listener', () => {
    expect(sampleProcesses()).toEqual([]);
    expect(connections).toBe(0);
  });

  it('each executor still runs a well-behaved program', async () => {
    const ok: Record<ProcessLanguageId, string> = {
      js: "require('node:assert').deepEqual(1 + 1, 2);",
      ts: 'declare var require: any;\nconst n: number = 2;\nrequire("node:assert").deepEqual(n, 2);',
      'go_test.go': 'package ok_test\n\nimport "testing"\n\nfunc TestOk(t *testing.T) {}\n',
      rs: 'fn main() { assert_eq!(1 + 1, 2); }',
      java: 'class Problem { public static void main(String[] a) { assert 1 + 1 == 2; } }',
      cpp: '#include <cassert>\nint main() { assert(1 + 1 == 2); }',
      lua: "local lu = require('luaunit')\nfunction test_ok() lu.assertEquals(1 + 1, 2) end\nos.exit(lu.LuaUnit.run())",
      rb: "require 'test/unit'\nclass TestOk < Test::Unit::TestCase\n  def test_ok\n    assert_equal(2, 1 + 1)\n  end\nend\n",
      php: '<?php\nif (1 + 1 !== 2) { throw new Exception("Test failed!"); }',
      pl: 'use Test::Deep;\nexit 1 unless eq_deeply(1 + 1, 2);',
      sh: 'set -e\n[[ $((1 + 1)) = 2 ]]',
      r: 'stopifnot(isTRUE(all.equal(1 + 1, 2)))',
      rkt: '#lang racket\n(require rackunit)\n(check-equal? (+ 1 1) 2)',
      d: 'unittest { assert(1 + 1 == 2); }\nvoid main() {}',
      jl: 'using Test\n@test 1 + 1 == 2',
      swift: 'assert(1 + 1 == 2)',
      scala: 'object Problem {\n    def main(args: Array[String]) = { assert(1 + 1 == 2); }\n}\n',
      cs: 'using System.Diagnostics;\nclass Problem {\n    public static void Main(string[] args) { Debug.Assert(1 + 1 == 2); }\n}\n',
    };
    const after = await Promise.all(LANGUAGES.map((l) => executors.get(l)!.run({ id: `${l}/ok`, program: ok[l], limits: AMPLE })));
    for (const r of after) expect(r.status, JSON.stringify(r)).toBe('passed');
  }, 60_000);
});
