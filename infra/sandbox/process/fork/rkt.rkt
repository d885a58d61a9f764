#lang racket/base
;; The warm Racket server (../rktServer.ts; docs/sandbox.md#warm-racket): one per slot, in the
;; lone run's jail as the slot's uid. Racket CS cannot fork, so each program runs inside this
;; process, in a racket/sandbox evaluator of its own: a fresh namespace (racket and rackunit
;; attached from here, loaded once), custodian, thread, environment copy and random generator, a
;; code inspector weaker than the one racket and its libraries were declared under (so protected
;; exports: ffi/unsafe, racket/unsafe/ops, vm-eval, linklets, are refused), and a security guard
;; that refuses every file, network and foreign-library access beyond reading the program and
;; Racket's own installation. Fidelity: whatever this cannot run as `racket /build/program.rkt`
;; would is answered {"alone":true} (the runner then kills this server and runs the program in a
;; cold racket): the screen below, a refused access, a protected binding, output past the cap,
;; the time or memory limit, anything raised past the runner.
;;
;; Protocol: a banner line, then per request line (JSON: timeoutMs, memoryBytes, cap) one answer
;; line (JSON), on the stdout this process had at start, which no program can reach: the server's
;; own current ports are replaced by sinks before any program runs, and the guard refuses /dev and
;; /proc paths. The server never calls anything a program handed it (no printing of its values).
(require racket/sandbox racket/port json net/base64 racket/list
         (only-in racket) rackunit)

(define protocol (current-output-port))
(current-output-port (open-output-nowhere))
(current-error-port (open-output-nowhere))
(define here (current-namespace))
(define base-env (environment-variables-copy (current-environment-variables)))
(define args (current-command-line-arguments))
;; The program's path: /build/program.rkt, or (tests of this script alone) the one given.
(define program-path (string->path (if (> (vector-length args) 0) (vector-ref args 0) "/build/program.rkt")))
(define program-dir (let-values ([(dir name must-be-dir?) (split-path program-path)]) (path->string dir)))

;; What a program may touch: its own file, its directory's compiled-file lookups, Racket's installation.
(define readable
  (list (regexp (string-append "^" (regexp-quote program-dir))) #rx"^/usr/share/racket/" #rx"^/usr/lib/racket/" #rx"^/etc/racket/"
        #rx"^/usr/share/racket$" #rx"^/usr/lib/racket$"
        (regexp (string-append "^" (regexp-quote (path->string (find-system-path 'addon-dir)))))))

;; The screen, on the program's symbols (comments and strings aside): what an evaluator might
;; run otherwise than a cold racket, beyond what the guard sees (it flags every refused access):
;; eval, namespaces, modules and submodules (main, configure-runtime), protected bindings a program
;; could catch the refusal of (unsafe, ffi, #%, linklets, vm-), inspectors, custodians, plumbers,
;; threads and futures (killed with the evaluator, where a cold racket's exit ends them), the exit
;; handler, the environment (a copy here), continuations and prompts around the runner, ports'
;; kinds. Any match runs alone: it costs time only, never an outcome.
(define screen
  #px"(^|[-:/*])eval|namespace|module|unsafe|ffi|#%|linklet|^vm-|dynamic-require|inspector|custodian|plumber|thread|future|^place|executor|^will-|exit-handler|security-guard|sandbox|command-line|environment|putenv|getenv|collect-garbage|break|continuation|prompt|abort|call/cc|call/ec|^load|current-load|read-accept|file-stream|terminal-port")

;; The symbols of the program's text after its #lang line, or #f when it does not read here.
(define (symbols-of text)
  (with-handlers ([exn:fail? (lambda (e) #f)])
    (define in (open-input-string text))
    (read-line in)
    (define found '())
    (define (walk d)
      (cond [(symbol? d) (set! found (cons d found))]
            [(pair? d) (walk (car d)) (walk (cdr d))]
            [(vector? d) (for ([x (in-vector d)]) (walk x))]
            [(box? d) (walk (unbox d))]
            [(hash? d) (for ([(k v) (in-hash d)]) (walk k) (walk v))]
            [(prefab-struct-key d) (walk (struct->vector d))]
            [else (void)]))
    (parameterize ([read-accept-reader #f] [read-accept-lang #f] [read-accept-compiled #f])
      (let loop ()
        (define d (read in))
        (unless (eof-object? d) (walk d) (loop))))
    found))

;; EXPLORA_RKT_NO_SCREEN=1 (its tests only: the runner's environment for the server is the run
;; step's, which never has it) turns the screen off, to show what the layers under it hold.
(define screening? (not (equal? (getenv "EXPLORA_RKT_NO_SCREEN") "1")))

(define (screened? text)
  (define symbols (and screening? (symbols-of text)))
  (cond
    [(not screening?) #f]
    [symbols (for/or ([s symbols]) (regexp-match? screen (symbol->string s)))]
    [else
     ;; Unreadable here: a syntax error (the evaluator reports it as racket does), unless the
     ;; text asks for another reader, which this read refuses and the module's reader may not.
     (regexp-match? #rx"#reader|#lang|#!" (substring text (min (string-length text) 12)))]))

(define (first-line-ok? text)
  (regexp-match? #rx"^#lang racket(/base)?[ \t]*\r?\n" text))

(define (answer v)
  (write-json v protocol)
  (newline protocol)
  (flush-output protocol))

(define (alone why) (answer (hasheq 'alone #t 'why why)))

;; A port that keeps the first `cap` bytes and counts the rest; past the cap the run is refused.
(define (capture cap over!)
  (define kept (open-output-bytes))
  (define total 0)
  (define port
    (make-output-port
     'program
     always-evt
     (lambda (bs start end non-block? breakable?)
       (define n (- end start))
       (define room (max 0 (- cap total)))
       (write-bytes bs kept start (+ start (min n room)))
       (set! total (+ total n))
       (when (> total cap) (over!) (raise (exn:fail "output past the cap" (current-continuation-marks))))
       n)
     void))
  (values port (lambda () (get-output-bytes kept)) (lambda () total)))

(define (run-one timeout-ms memory-bytes cap)
  (define text (call-with-input-file program-path port->string))
  (cond
    [(not (first-line-ok? text)) (alone "not #lang racket")]
    [(screened? text) (alone "screen")]
    [else
     (define suspicious #f)
     (define (refuse! why) (unless suspicious (set! suspicious why)))
     (define exit-code #f)
     ;; The evaluator: an exit kills it (and waits for that), which no handler of the program's
     ;; can catch (racket's exit ends the process there).
     (define evaluator #f)
     (define-values (out out-bytes out-total) (capture cap (lambda () (refuse! "stdout past the cap"))))
     (define-values (err err-bytes err-total) (capture cap (lambda () (refuse! "stderr past the cap"))))
     (define guard
       (make-security-guard
        (current-security-guard)
        (lambda (who path modes)
          ;; Existence checks anywhere (the module name resolver probes links files and compiled
          ;; directories); reads in `readable` only; nothing else.
          (unless (and (null? (remove* '(read exists) modes))
                       (or (not (memq 'read modes))
                           (and path (for/or ([rx readable]) (regexp-match? rx (path->string path))))))
            (refuse! (format "file access: ~a ~a" modes path))
            (error who "refused in the warm Racket server")))
        (lambda (who host port mode)
          (refuse! "network")
          (error who "refused in the warm Racket server"))
        (lambda (who path paths)
          (refuse! "link")
          (error who "refused in the warm Racket server"))))
     (define started (current-inexact-milliseconds))
     (define result
       (with-handlers ([(lambda (e) #t) (lambda (e) 'raised)])
         (parameterize ([sandbox-namespace-specs (list make-base-namespace 'racket 'rackunit)]
                        [sandbox-output out]
                        [sandbox-error-output err]
                        [sandbox-input #f]
                        [sandbox-security-guard guard]
                        [sandbox-memory-limit (/ memory-bytes 1048576.0)]
                        [sandbox-eval-limits (list (/ timeout-ms 1000.0) #f)]
                        [sandbox-exit-handler
                         (lambda (v)
                           ;; racket's own rule: an exact integer in 1..255 is the status, anything else 0.
                           (unless exit-code (set! exit-code (if (and (exact-integer? v) (<= 1 v 255)) v 0)))
                           (kill-evaluator evaluator)
                           (sync never-evt))]
                        [sandbox-propagate-exceptions #t]
                        [current-environment-variables (environment-variables-copy base-env)]
                        [current-pseudo-random-generator (make-pseudo-random-generator)]
                        [current-command-line-arguments (vector)])
           (define ev (make-evaluator 'racket/base))
           (set! evaluator ev)
           (dynamic-wind
            void
            (lambda ()
              ;; Runs inside the sandbox: racket's uncaught-exception rule (the error display
              ;; handler's text on stderr, status 1), the exit handler's status otherwise.
              (ev `(with-handlers ([(lambda (e) #t)
                                    (lambda (e)
                                      ((error-display-handler)
                                       (if (exn? e) (exn-message e) (format "uncaught exception: ~e" e))
                                       e)
                                      1)])
                     (dynamic-require ,program-path #f)
                     0)))
            (lambda () (kill-evaluator ev))))))
     (define ms (- (current-inexact-milliseconds) started))
     ;; An exit ends the program there (its status); else the runner's own 0 or 1. Then the cold
     ;; run's wrapper rule (rkt.ts): a clean exit with anything on stderr is status 1.
     (define ended (cond [exit-code exit-code] [(eqv? result 0) 0] [(eqv? result 1) 1] [else #f]))
     (define status (if (and (eqv? ended 0) (> (err-total) 0)) 1 ended))
     ;; The runner's own frame, last of an uncaught error's context: not in a cold run's.
     (define stderr-text
       (let ([b (err-bytes)])
         (if (and (eqv? ended 1) (not exit-code)) (regexp-replace #rx#"   eval:[0-9]+:[0-9]+\n$" b #"") b)))
     (cond
       [suspicious (alone suspicious)]
       [(not status) (alone "the evaluation did not end by itself")]
       [(regexp-match? #rx#"access disallowed by code inspector|name is protected|cannot access namespace|refused in the warm Racket server" stderr-text)
        (alone "refused")]
       [else
        (answer (hasheq 'exitCode status 'signal (json-null) 'timedOut #f 'durationMs ms
                        'stdout (bytes->string/latin-1 (base64-encode (out-bytes) #""))
                        'stderr (bytes->string/latin-1 (base64-encode stderr-text #""))
                        'stdoutBytes (out-total) 'stderrBytes (- (err-total) (- (bytes-length (err-bytes)) (bytes-length stderr-text)))))])]))

(answer (hasheq 'ready #t))
(let loop ()
  (define line (read-line (current-input-port) 'linefeed))
  (unless (eof-object? line)
    (define request (string->jsexpr line))
    (run-one (hash-ref request 'timeoutMs) (hash-ref request 'memoryBytes) (hash-ref request 'cap))
    (loop)))
