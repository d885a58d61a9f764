/** The test cases and benchmark programs of `go_test.go` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

const GO_HEAD = 'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n';
const goTest = (body: string, expected: string): string =>
  `${GO_HEAD}func add(a int, b int) int {\n${body}\n}\n\nfunc TestAdd(t *testing.T) {\n  if fmt.Sprintf("%v", add(2, 3)) != fmt.Sprintf("%v", ${expected}) {\n    t.Errorf("expected '%v', got '%v'", ${expected}, add(2, 3))\n  }\n}\n`;

const go = (imports: string[], body: string) =>
  `package hostile_test\n\nimport (\n${['testing', ...imports].map((i) => `\t"${i}"`).join('\n')}\n)\n\nfunc TestHostile(t *testing.T) {\n${body}\n}\n`;

export const fixtures: LanguageFixtures<'go_test.go'> = {
  language: 'go_test.go',
  multiple: {
    id: 'go_test.go',
    row: {
      prompt:
        'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunc add(x int, y int) int {\n',
      tests:
        'func TestAdd(t *testing.T) {\n  candidate := add\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(0, 1), expected: 1 },\n     { actual: candidate(1, 0), expected: 1 },\n     { actual: candidate(2, 3), expected: 5 },\n     { actual: candidate(5, 7), expected: 12 },\n     { actual: candidate(7, 5), expected: 12 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
      stop: ['\nfunc', 'struct', '\n// '],
    },
    completions: {
      right: '\treturn x + y\n}\n\nfunc junk() int { return "kept past a stop token" }\n',
      wrong: '\treturn x - y\n}\n',
      noncompiling: '\treturn x + "y"\n}\n',
      hostile:
        '\tvar s [][]byte\n\tfor {\n\t\tb := make([]byte, 10<<20)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\ts = append(s, b)\n\t}\n}\n',
    },
    hostilePasses: false,
  },
  process: {
    statuses: {
      ok: goTest('  return a + b', '5'),
      wrong: goTest('  return a - b', '5'),
      broken: goTest('  return a + "b"', '5'),
      hangs: goTest('  for {}', '5'),
    },
    hostile: ({ port, targets, outputMiB }) => {
      const ports = `[${port}, 7233, 8333]`;
      return {
        loop: go([], '\tfor {\n\t}'),
        spawnBomb: go(['os/exec'], '\tfor {\n\t\t_ = exec.Command("/bin/sleep", "100").Start()\n\t}'),
        memoryBomb: go(
          [],
          '\tvar s [][]byte\n\tfor {\n\t\tb := make([]byte, 10<<20)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\ts = append(s, b)\n\t}',
        ),
        output: go(['os'], `\tb := make([]byte, 1<<20)\n\tfor i := 0; i < ${outputMiB}; i++ {\n\t\tos.Stdout.Write(b)\n\t}`),
        network: go(
          ['fmt', 'net', 'time'],
          `\tfor _, p := range []int${ports.replace('[', '{').replace(']', '}')} {\n\t\tc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p), time.Second)\n\t\tif err == nil {\n\t\t\tfmt.Println(p, "CONNECTED")\n\t\t\tc.Close()\n\t\t} else {\n\t\t\tfmt.Println(p, err)\n\t\t}\n\t}`,
        ),
        environment: go(['fmt', 'os'], '\tfmt.Println(os.Environ())\n\tb, _ := os.ReadFile("/proc/1/environ")\n\tfmt.Println(string(b))'),
        writeOutside: go(
          ['fmt', 'os'],
          `\tfor _, p := range []string{${targets.map((t) => JSON.stringify(t)).join(', ')}} {\n\t\tif err := os.WriteFile(p, []byte("x"), 0644); err == nil {\n\t\t\tfmt.Println("WROTE", p)\n\t\t} else {\n\t\t\tfmt.Println("refused", p)\n\t\t}\n\t}`,
        ),
        daemon: go(
          ['fmt', 'os/exec', 'syscall'],
          '\tc := exec.Command("/bin/sleep", "30")\n\tc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}\n\tif err := c.Start(); err != nil {\n\t\tt.Fatal(err)\n\t}\n\tfmt.Println("spawned", c.Process.Pid)',
        ),
      };
    },
    wellBehaved: 'package ok_test\n\nimport "testing"\n\nfunc TestOk(t *testing.T) {}\n',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            'package strlen_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Return length of given string\n// >>> strlen("")\n// 0\n// >>> strlen("abc")\n// 3\nfunc strlen(myString string) int {\n',
          completion: '    return len(myString)\n}\n',
          tests:
            'func TestStrlen(t *testing.T) {\n  candidate := strlen\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(""), expected: 0 },\n     { actual: candidate("x"), expected: 1 },\n     { actual: candidate("asdasnakj"), expected: 9 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            'package greatest_common_divisor_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Return a greatest common divisor of two integers a and b\n// >>> greatest_common_divisor(3, 5)\n// 1\n// >>> greatest_common_divisor(25, 15)\n// 5\nfunc greatest_common_divisor(a int, b int) int {\n',
          completion: '    for b != 0 {\n        a, b = b, a%b\n    }\n    return a\n}\n',
          tests:
            'func TestGreatest_Common_Divisor(t *testing.T) {\n  candidate := greatest_common_divisor\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(3, 7), expected: 1 },\n     { actual: candidate(10, 15), expected: 5 },\n     { actual: candidate(49, 14), expected: 7 },\n     { actual: candidate(144, 60), expected: 12 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            'package get_positive_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Return only positive numbers in the list.\n// >>> get_positive([]int{-1, 2, -4, 5, 6})\n// []int{2, 5, 6}\n// >>> get_positive([]int{5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10})\n// []int{5, 3, 2, 3, 9, 123, 1}\nfunc get_positive(l []int) []int {\n',
          completion:
            '    out := []int{}\n    for _, e := range l {\n        if e > 0 {\n            out = append(out, e)\n        }\n    }\n    return out\n}\n',
          tests:
            'func TestGet_Positive(t *testing.T) {\n  candidate := get_positive\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate([]int{-1, -2, 4, 5, 6}), expected: []int{4, 5, 6} },\n     { actual: candidate([]int{5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10}), expected: []int{5, 3, 2, 3, 3, 9, 123, 1} },\n     { actual: candidate([]int{-1, -2}), expected: []int{} },\n     { actual: candidate([]int{}), expected: []int{} },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
        },
      ],
      // Go's compiled output ignores comments: a declaration of its own.
      distinct: (i) => `\nvar _ = ${i}\n`,
      lever: '`go test -c` per program',
    },
  },
};
