/** The test cases and benchmark programs of `rs` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const rs = (body: string) => `#![allow(unused)]\nuse std::io::Write;\nfn main() {\n${body}\n}\n`;

export const fixtures: LanguageFixtures<'rs'> = {
  language: 'rs',
  multiple: {
    id: 'rs',
    row: {
      prompt: '/// Add two numbers x and y\n/// >>> add(2, 3)\n/// 5\n/// >>> add(5, 7)\n/// 12\nfn add(x: isize, y: isize) -> isize {\n',
      tests:
        '}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n    assert_eq!(candidate(1, 0), 1);\n    assert_eq!(candidate(2, 3), 5);\n    assert_eq!(candidate(5, 7), 12);\n    assert_eq!(candidate(7, 5), 12);\n}\n',
      stop: ['\n}'],
    },
    completions: {
      right: '    x + y\n}\n\nfn junk() -> isize { "kept past a stop token" }\n',
      wrong: '    x - y\n}\n',
      noncompiling: '    x + "y"\n}\n',
      // Connects to Temporal's port: returns the right sum only when the connection is refused.
      hostile: '    match std::net::TcpStream::connect("127.0.0.1:7233") { Ok(_) => 0, Err(_) => x + y }\n}\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'fn add(a: isize, b: isize) -> isize { a + b }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
      wrong: 'fn add(a: isize, b: isize) -> isize { a - b }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
      broken: 'fn add(a: isize, b: isize) -> isize { a + "b" }\nfn main() { assert_eq!(add(2, 3), 5); }\n',
      hangs: 'fn main() { loop {} }\n',
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: rs('    loop {}'),
        spawnBomb: rs('    loop { let _ = std::process::Command::new("/bin/sleep").arg("100").spawn(); }'),
        memoryBomb: rs('    let mut v: Vec<Vec<u8>> = Vec::new();\n    loop { v.push(vec![1u8; 10 << 20]); }'),
        output: rs(
          `    let b = vec![b'x'; 1 << 20];\n    let mut out = std::io::stdout().lock();\n    for _ in 0..${outputMiB} { let _ = out.write_all(&b); }`,
        ),
        network: rs(
          `    for p in ${ports} {\n        let addr: std::net::SocketAddr = format!("127.0.0.1:{}", p).parse().unwrap();\n        match std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(1)) {\n            Ok(_) => println!("{} CONNECTED", p),\n            Err(e) => println!("{} {}", p, e),\n        }\n    }`,
        ),
        environment: rs(
          '    for (k, v) in std::env::vars() { println!("{}={}", k, v); }\n    println!("{}", std::fs::read_to_string("/proc/1/environ").unwrap_or_default());',
        ),
        writeOutside: rs(
          `    for p in [${targets.map((t) => JSON.stringify(t)).join(', ')}] {\n        match std::fs::write(p, "x") { Ok(_) => println!("WROTE {}", p), Err(_) => println!("refused {}", p) }\n    }`,
        ),
        daemon: rs(
          '    let c = std::process::Command::new("/usr/bin/setsid").arg("/bin/sleep").arg("30").spawn().unwrap();\n    println!("spawned {}", c.id());',
        ),
      };
    },
    wellBehaved: 'fn main() { assert_eq!(1 + 1, 2); }',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            '/// Return length of given string\n/// >>> strlen(String::from(""))\n/// 0\n/// >>> strlen(String::from("abc"))\n/// 3\nfn strlen(string: String) -> isize {\n',
          completion: '    string.len() as isize',
          tests:
            '}\n\nfn main() {\n    let candidate = strlen;\n    assert_eq!(candidate(String::from("")), 0);\n    assert_eq!(candidate(String::from("x")), 1);\n    assert_eq!(candidate(String::from("asdasnakj")), 9);\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '/// Return a greatest common divisor of two integers a and b\n/// >>> greatest_common_divisor(3, 5)\n/// 1\n/// >>> greatest_common_divisor(25, 15)\n/// 5\nfn greatest_common_divisor(a: isize, b: isize) -> isize {\n',
          completion:
            '    let (mut a, mut b) = (a, b);\n    while b != 0 {\n        let t = a % b;\n        a = b;\n        b = t;\n    }\n    a',
          tests:
            '}\n\nfn main() {\n    let candidate = greatest_common_divisor;\n    assert_eq!(candidate(3, 7), 1);\n    assert_eq!(candidate(10, 15), 5);\n    assert_eq!(candidate(49, 14), 7);\n    assert_eq!(candidate(144, 60), 12);\n}\n',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '/// Return only positive numbers in the vector.\n/// >>> get_positive(vec![-1, 2, -4, 5, 6])\n/// vec![2, 5, 6]\n/// >>> get_positive(vec![5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])\n/// vec![5, 3, 2, 3, 9, 123, 1]\nfn get_positive(l: Vec<isize>) -> Vec<isize> {\n',
          completion: '    l.into_iter().filter(|e| *e > 0).collect()',
          tests:
            '}\n\nfn main() {\n    let candidate = get_positive;\n    assert_eq!(candidate(vec![-1, -2, 4, 5, 6]), vec![4, 5, 6]);\n    assert_eq!(candidate(vec![5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]), vec![5, 3, 2, 3, 3, 9, 123, 1]);\n    assert_eq!(candidate(vec![-1, -2]), Vec::<isize>::new());\n    assert_eq!(candidate(Vec::<isize>::new()), Vec::<isize>::new());\n}\n',
        },
      ],
      distinct: (i) => `\n// bench program ${i}\n`,
      lever: 'rustc without the flags',
    },
  },
};
