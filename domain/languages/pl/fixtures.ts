/** The test cases and benchmark programs of `pl` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'pl'> = {
  language: 'pl',
  multiple: {
    id: 'pl',
    row: {
      prompt: '# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\nsub add {\n    my($x, $y) = @_;\n',
      tests:
        'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n        if(eq_deeply($candidate->(0, 1),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(1, 0),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(2, 3),5)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(5, 7),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(7, 5),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
      stop: ['\nsub', '\n#', '\n\n'],
    },
    completions: {
      right: "    return $x + $y;\n}\n\nsub junk { die 'kept past a stop token'; }\n",
      wrong: '    return $x - $y;\n}\n',
      noncompiling: '    return $x +;\n}\n',
      // Reads the worker's environment: the right sum only when it sees none of it.
      hostile: '    return (grep { /EXPLORA|TEMPORAL/ } keys %ENV) ? 0 : $x + $y;\n}\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'sub add { my($a, $b) = @_; return $a + $b; }\nuse Test::Deep;\nif (eq_deeply(add(2, 3), 5)) { print "ok!" } else { exit 1; }\n',
      wrong:
        'sub add { my($a, $b) = @_; return $a - $b; }\nuse Test::Deep;\nif (eq_deeply(add(2, 3), 5)) { print "ok!" } else { exit 1; }\n',
      broken: 'sub add { my($a, $b) = @_; return $a + ; }\n',
      hangs: '1 while 1;\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: '1 while 1;',
      spawnBomb: "while (1) { my $p = fork(); if (defined $p && $p == 0) { exec('/bin/sleep', '100'); } }",
      memoryBomb: "my @a;\npush @a, 'x' x (10 << 20) while 1;",
      output: `my $b = 'x' x (1 << 20);\nsyswrite(STDOUT, $b) for 1 .. ${outputMiB};`,
      network: `use IO::Socket::INET;\nfor my $p (${port}, 7233, 8333) {\n    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $p, Timeout => 1);\n    print $s ? "$p CONNECTED\\n" : "$p $!\\n";\n}`,
      environment: "print \"$_=$ENV{$_}\\n\" for keys %ENV;\nif (open(my $f, '<', '/proc/1/environ')) { local $/; print <$f>; }",
      writeOutside: `for my $p (${targets.map((t) => JSON.stringify(t)).join(', ')}) {\n    if (open(my $f, '>', $p)) { print $f 'x'; close $f; print "WROTE $p\\n"; } else { print "refused $p\\n"; }\n}`,
      daemon: "my $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nprint \"spawned $c\\n\";",
    }),
    wellBehaved: 'use Test::Deep;\nexit 1 unless eq_deeply(1 + 1, 2);',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt: '# Return length of given string\n# >>> strlen("")\n# 0\n# >>> strlen("abc")\n# 3\nsub strlen {\n    my($string) = @_;\n',
          completion: '    return length($string);\n}',
          tests:
            'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&strlen;\n        if(eq_deeply($candidate->(""),0)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->("x"),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->("asdasnakj"),9)) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '# Return a greatest common divisor of two integers a and b\n# >>> greatest_common_divisor(3, 5)\n# 1\n# >>> greatest_common_divisor(25, 15)\n# 5\nsub greatest_common_divisor {\n    my($a, $b) = @_;\n',
          completion: '    ($a, $b) = ($b, $a % $b) while $b;\n    return $a;\n}',
          tests:
            'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&greatest_common_divisor;\n        if(eq_deeply($candidate->(3, 7),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(10, 15),5)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(49, 14),7)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(144, 60),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '# Return only positive numbers in the array.\n# >>> get_positive([-1, 2, -4, 5, 6])\n# [2, 5, 6]\n# >>> get_positive([5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10])\n# [5, 3, 2, 3, 9, 123, 1]\nsub get_positive {\n    my($l) = @_;\n',
          completion: '    return [grep { $_ > 0 } @$l];\n}',
          tests:
            'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&get_positive;\n        if(eq_deeply($candidate->([-1, -2, 4, 5, 6]),[4, 5, 6])) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->([5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]),[5, 3, 2, 3, 3, 9, 123, 1])) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->([-1, -2]),[])) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->([]),[])) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
        },
      ],
      distinct: (i) => `\n# bench program ${i}\n`,
    },
  },
};
