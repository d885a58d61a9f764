/** The test cases and benchmark programs of `rkt` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'rkt'> = {
  language: 'rkt',
  multiple: {
    id: 'rkt',
    row: {
      prompt:
        '#lang racket\n\n;; Add two numbers x and y\n;;     >>> (add 2 3)\n;;     5\n;;     >>> (add 5 7)\n;;     12\n(define (add x y)\n',
      tests:
        '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n    (check-within (candidate 0 1) 1 0.001)\n    (check-within (candidate 1 0) 1 0.001)\n    (check-within (candidate 2 3) 5 0.001)\n    (check-within (candidate 5 7) 12 0.001)\n    (check-within (candidate 7 5) 12 0.001)\n))\n\n(test-humaneval)',
      stop: ['\n(define ', '\n#|', '\n;', '\n('],
    },
    completions: {
      right: '  (+ x y))\n\n(define (junk) (error "kept past a stop token"))\n',
      wrong: '  (- x y))\n',
      noncompiling: '  (+ x y)\n',
      // Connects to Temporal's port: the right sum only when the connection is refused.
      hostile: '  (with-handlers ([exn:fail? (lambda (e) (+ x y))]) (tcp-connect "127.0.0.1" 7233) 0))\n',
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: '#lang racket\n(require rackunit)\n(define (add a b) (+ a b))\n(check-within (add 2 3) 5 0.001)\n',
      wrong: '#lang racket\n(require rackunit)\n(define (add a b) (- a b))\n(check-within (add 2 3) 5 0.001)\n',
      broken: '#lang racket\n(define (add a b) (+ a b)\n',
      hangs: '#lang racket\n(let loop () (loop))\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: '#lang racket\n(let loop () (loop))',
      spawnBomb: '#lang racket\n(let loop () (with-handlers ([exn:fail? void]) (process "/bin/sleep 100")) (loop))',
      memoryBomb:
        '#lang racket\n(define v (box (list)))\n(let loop () (set-box! v (cons (make-bytes (* 10 1024 1024) 1) (unbox v))) (loop))',
      output: `#lang racket\n(define b (make-bytes (* 1024 1024) 120))\n(for ([i ${outputMiB}]) (write-bytes b))`,
      network: `#lang racket\n(for ([p (list ${port} 7233 8333)])\n  (printf "~a ~a\\n" p (with-handlers ([exn:fail? (lambda (e) "refused")]) (tcp-connect "127.0.0.1" p) "CONNECTED")))`,
      environment:
        '#lang racket\n(for ([n (environment-variables-names (current-environment-variables))]) (printf "~a=~a\\n" n (getenv (bytes->string/utf-8 n))))\n(with-handlers ([exn:fail? void]) (display (file->string "/proc/1/environ")))',
      writeOutside: `#lang racket\n(for ([p (list ${targets.map((t) => JSON.stringify(t)).join(' ')})])\n  (if (with-handlers ([exn:fail? (lambda (e) #f)]) (with-output-to-file p (lambda () (display "x")) #:exists 'replace) #t)\n      (printf "WROTE ~a\\n" p)\n      (printf "refused ~a\\n" p)))`,
      daemon:
        '#lang racket\n(define-values (sp out in err) (subprocess #f #f #f "/usr/bin/setsid" "/bin/sleep" "30"))\n(printf "spawned ~a\\n" (subprocess-pid sp))',
    }),
    wellBehaved: '#lang racket\n(require rackunit)\n(check-equal? (+ 1 1) 2)',
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            '#lang racket\n\n;; Return length of given string\n;;     >>> (strlen "")\n;;     0\n;;     >>> (strlen "abc")\n;;     3\n(define (strlen string)\n',
          completion: '  (string-length string))',
          tests:
            '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate strlen))\n    (check-within (candidate "") 0 0.001)\n    (check-within (candidate "x") 1 0.001)\n    (check-within (candidate "asdasnakj") 9 0.001)\n))\n\n(test-humaneval)',
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '#lang racket\n\n;; Return a greatest common divisor of two integers a and b\n;;     >>> (greatest_common_divisor 3 5)\n;;     1\n;;     >>> (greatest_common_divisor 25 15)\n;;     5\n(define (greatest_common_divisor a b)\n',
          completion: '  (if (= b 0) a (greatest_common_divisor b (modulo a b))))',
          tests:
            '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate greatest_common_divisor))\n    (check-within (candidate 3 7) 1 0.001)\n    (check-within (candidate 10 15) 5 0.001)\n    (check-within (candidate 49 14) 7 0.001)\n    (check-within (candidate 144 60) 12 0.001)\n))\n\n(test-humaneval)',
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '#lang racket\n\n;; Return only positive numbers in the list.\n;;     >>> (get_positive (list -1 2 -4 5 6))\n;;     (list 2 5 6)\n;;     >>> (get_positive (list 5 3 -5 2 -3 3 9 0 123 1 -10))\n;;     (list 5 3 2 3 9 123 1)\n(define (get_positive l)\n',
          completion: '  (filter positive? l))',
          tests:
            '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate get_positive))\n    (check-within (candidate (list -1 -2 4 5 6)) (list 4 5 6) 0.001)\n    (check-within (candidate (list 5 3 -5 2 3 3 9 0 123 1 -10)) (list 5 3 2 3 3 9 123 1) 0.001)\n    (check-within (candidate (list -1 -2)) (list ) 0.001)\n    (check-within (candidate (list )) (list ) 0.001)\n))\n\n(test-humaneval)',
        },
      ],
      distinct: (i) => `\n; bench program ${i}\n`,
    },
  },
};
