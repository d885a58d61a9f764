/** The test cases and benchmark programs of `sh` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'sh'> = {
  language: 'sh',
  multiple: {
    id: 'sh',
    row: {
      prompt:
        '#!/bin/bash\n# Add two numbers x and y\n# >>> $(add "2" "3")\n# "5"\n# >>> $(add "5" "7")\n# "12"\n#\n# $1 is an integer\n# $2 is an integer\nadd() {\n',
      tests:
        '}\n\ncandidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "0" "1") = "1" ]]\n    [[ $(candidate "1" "0") = "1" ]]\n    [[ $(candidate "2" "3") = "5" ]]\n    [[ $(candidate "5" "7") = "12" ]]\n    [[ $(candidate "7" "5") = "12" ]]\n}\n\nrun_test',
      stop: ['\n}'],
    },
    completions: {
      right: "    echo $(( $1 + $2 ))\n}\n\njunk() { echo 'kept past a stop token'; }\n",
      wrong: '    echo $(( $1 - $2 ))\n}\n',
      noncompiling: '    if (( $1 )); then\n}\n',
      // Connects to Temporal's port (bash's /dev/tcp): the right sum only when the connection is refused.
      hostile: '    if (exec 3<>/dev/tcp/127.0.0.1/7233) 2>/dev/null; then echo 0; else echo $(( $1 + $2 )); fi\n}\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'add() {\n    echo $(( $1 + $2 ))\n}\nset -e\n[[ $(add 2 3) = 5 ]]\n',
      wrong: 'add() {\n    echo $(( $1 - $2 ))\n}\nset -e\n[[ $(add 2 3) = 5 ]]\n',
      broken: 'add() {\n    if (( $1 )); then\n}\n',
      hangs: 'while :; do :; done\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: 'while :; do :; done',
      spawnBomb: 'while :; do /bin/sleep 100 & done',
      memoryBomb: 'a=x\nwhile :; do a=$a$a; done',
      output: `head -c ${outputMiB * 1048576} /dev/zero | tr '\\0' x`,
      network: `for p in ${port} 7233 8333; do\n  if (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then echo "$p CONNECTED"; else echo "$p refused"; fi\ndone`,
      environment: 'env\ncat /proc/1/environ 2>/dev/null || true',
      writeOutside: `for p in ${targets.join(' ')}; do\n  if (echo x > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "refused $p"; fi\ndone`,
      daemon: 'setsid /bin/sleep 30 > /dev/null 2>&1 &\necho "spawned $!"',
    }),
    wellBehaved: 'set -e\n[[ $((1 + 1)) = 2 ]]',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            '#!/bin/bash\n# Return length of given string\n# >>> $(strlen "")\n# "0"\n# >>> $(strlen "abc")\n# "3"\n#\n# $1 is a string\nstrlen() {\n',
          completion: '    echo ${#1}',
          tests:
            '}\n\ncandidate() {\n    strlen "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "") = "0" ]]\n    [[ $(candidate "x") = "1" ]]\n    [[ $(candidate "asdasnakj") = "9" ]]\n}\n\nrun_test',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '#!/bin/bash\n# Return a greatest common divisor of two integers a and b\n# >>> $(greatest_common_divisor "3" "5")\n# "1"\n# >>> $(greatest_common_divisor "25" "15")\n# "5"\n#\n# $1 is an integer\n# $2 is an integer\ngreatest_common_divisor() {\n',
          completion: '    local a=$1 b=$2 t\n    while (( b != 0 )); do t=$((a % b)); a=$b; b=$t; done\n    echo $a',
          tests:
            '}\n\ncandidate() {\n    greatest_common_divisor "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "3" "7") = "1" ]]\n    [[ $(candidate "10" "15") = "5" ]]\n    [[ $(candidate "49" "14") = "7" ]]\n    [[ $(candidate "144" "60") = "12" ]]\n}\n\nrun_test',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '#!/bin/bash\n# Return only positive numbers in the list.\n# >>> $(get_positive "-1 2 -4 5 6")\n# [\'"2"\', \'"5"\', \'"6"\']\n# >>> $(get_positive "5 3 -5 2 -3 3 9 0 123 1 -10")\n# [\'"5"\', \'"3"\', \'"2"\', \'"3"\', \'"9"\', \'"123"\', \'"1"\']\n#\n# $1 is a space-separated list\nget_positive() {\n',
          completion: '    local out=()\n    for e in $1; do (( e > 0 )) && out+=("$e"); done\n    echo "${out[*]}"',
          tests:
            '}\n\ncandidate() {\n    get_positive "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "-1 -2 4 5 6") = "4 5 6" ]]\n    [[ $(candidate "5 3 -5 2 3 3 9 0 123 1 -10") = "5 3 2 3 3 9 123 1" ]]\n    [[ $(candidate "-1 -2") = "" ]]\n    [[ $(candidate "") = "" ]]\n}\n\nrun_test',
        },
      ],
      distinct: (i) => `\n# bench program ${i}\n`,
    },
  },
};
