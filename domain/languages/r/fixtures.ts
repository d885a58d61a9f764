/** The test cases and benchmark programs of `r` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'r'> = {
  language: 'r',
  multiple: {
    id: 'r',
    row: {
      prompt: '# Add two numbers x and y\n#     >>> add(2, 3)\n#     5\n#     >>> add(5, 7)\n#     12\nadd <- function(x, y) {',
      tests:
        'test_humaneval <- function() {\n    candidate <- add\n    stopifnot(isTRUE(all.equal(candidate(0, 1), 1)))\n    stopifnot(isTRUE(all.equal(candidate(1, 0), 1)))\n    stopifnot(isTRUE(all.equal(candidate(2, 3), 5)))\n    stopifnot(isTRUE(all.equal(candidate(5, 7), 12)))\n    stopifnot(isTRUE(all.equal(candidate(7, 5), 12)))\n}\ntest_humaneval()',
      stop: ['\n#', '\n```'],
    },
    completions: {
      right: "\n    x + y\n}\n# kept past a stop token\nstop('kept past a stop token')\n",
      wrong: '\n    x - y\n}\n',
      noncompiling: '\n    x +\n}\n',
      // Writes outside its directory: the right sum only when that is refused.
      hostile:
        "\n    ok <- tryCatch({ writeLines('x', '/etc/explora-multiple-planted'); TRUE }, error = function(e) FALSE, warning = function(w) FALSE)\n    if (ok) 0 else x + y\n}\n",
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: 'add <- function(a, b) {\n    a + b\n}\nstopifnot(isTRUE(all.equal(add(2, 3), 5)))\n',
      wrong: 'add <- function(a, b) {\n    a - b\n}\nstopifnot(isTRUE(all.equal(add(2, 3), 5)))\n',
      broken: 'add <- function(a, b) {\n    a +\n}\n',
      hangs: 'repeat {}\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: 'repeat {}',
      spawnBomb: "repeat { try(system('/bin/sleep 100', wait = FALSE), silent = TRUE) }",
      memoryBomb: 'a <- list()\ni <- 0\nrepeat { i <- i + 1; a[[i]] <- numeric(1e7) + i }',
      output: `b <- strrep('x', 2^20)\nfor (i in 1:${outputMiB}) cat(b)`,
      network: `for (p in c(${port}, 7233, 8333)) {\n  r <- tryCatch({ s <- socketConnection('127.0.0.1', p, blocking = TRUE, timeout = 1); close(s); 'CONNECTED' }, error = function(e) 'refused', warning = function(w) 'refused')\n  cat(p, r, '\\n')\n}`,
      environment: "print(Sys.getenv())\ntry(cat(readLines('/proc/1/environ', warn = FALSE)), silent = TRUE)",
      writeOutside: `for (p in c(${targets.map((t) => JSON.stringify(t)).join(', ')})) {\n  ok <- tryCatch({ writeLines('x', p); TRUE }, error = function(e) FALSE, warning = function(w) FALSE)\n  cat(if (ok) 'WROTE' else 'refused', p, '\\n')\n}`,
      daemon: "invisible(system('setsid /bin/sleep 30 > /dev/null 2>&1 & echo spawned $!'))",
    }),
    wellBehaved: 'stopifnot(isTRUE(all.equal(1 + 1, 2)))',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            "# Return length of given string\n#     >>> strlen('')\n#     0\n#     >>> strlen('abc')\n#     3\nstrlen <- function(string) {",
          completion: '\n    nchar(string)\n}',
          tests:
            "test_humaneval <- function() {\n    candidate <- strlen\n    stopifnot(isTRUE(all.equal(candidate(''), 0)))\n    stopifnot(isTRUE(all.equal(candidate('x'), 1)))\n    stopifnot(isTRUE(all.equal(candidate('asdasnakj'), 9)))\n}\ntest_humaneval()",
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '# Return a greatest common divisor of two integers a and b\n#     >>> greatest_common_divisor(3, 5)\n#     1\n#     >>> greatest_common_divisor(25, 15)\n#     5\ngreatest_common_divisor <- function(a, b) {',
          completion: '\n    while (b != 0) {\n        t <- b\n        b <- a %% b\n        a <- t\n    }\n    a\n}',
          tests:
            'test_humaneval <- function() {\n    candidate <- greatest_common_divisor\n    stopifnot(isTRUE(all.equal(candidate(3, 7), 1)))\n    stopifnot(isTRUE(all.equal(candidate(10, 15), 5)))\n    stopifnot(isTRUE(all.equal(candidate(49, 14), 7)))\n    stopifnot(isTRUE(all.equal(candidate(144, 60), 12)))\n}\ntest_humaneval()',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '# Return only positive numbers in the list.\n#     >>> get_positive(c(-1, 2, -4, 5, 6))\n#     c(2, 5, 6)\n#     >>> get_positive(c(5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10))\n#     c(5, 3, 2, 3, 9, 123, 1)\nget_positive <- function(l) {',
          completion: '\n    out <- l[l > 0]\n    if (length(out) == 0) NULL else out\n}',
          tests:
            'test_humaneval <- function() {\n    candidate <- get_positive\n    stopifnot(isTRUE(all.equal(candidate(c(-1, -2, 4, 5, 6)), c(4, 5, 6))))\n    stopifnot(isTRUE(all.equal(candidate(c(5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10)), c(5, 3, 2, 3, 3, 9, 123, 1))))\n    stopifnot(isTRUE(all.equal(candidate(c(-1, -2)), c())))\n    stopifnot(isTRUE(all.equal(candidate(c()), c())))\n}\ntest_humaneval()',
        },
      ],
      distinct: (i) => `\n# bench program ${i}\n`,
    },
  },
};
