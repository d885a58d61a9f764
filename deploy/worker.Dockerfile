# syntax=docker/dockerfile:1
#
# An explora worker with the sandbox: one image for every queue; the command picks the queues
# (`--queues sandbox`, `--queues llm --sweep-config ...`, `--queues workflows,storage`).
#
#   docker build -f deploy/worker.Dockerfile -t explora-worker .
#
# The sandbox runs generated programs under bubblewrap, which needs namespaces and mounts that a
# default container forbids: run the sandbox queue with
#   --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined
# (docs/deploy.md, "The sandbox in a container", says why each is needed and what it does not open).
# The other queues need none of that.

# Debian bookworm: its python3 is 3.11, the version the sandbox's pinned numpy/pandas wheels are for.
FROM node:20-bookworm-slim

# bubblewrap: the sandbox; python3 + venv: the interpreter samples run with; tini: signals reach
# the worker (SIGTERM starts a graceful stop) and zombies are reaped.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 python3-venv ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/explora

# Dependencies first, for the layer cache. --ignore-scripts: no install script is needed by a
# worker (the Temporal core bridge ships prebuilt; node-llama-cpp is for the local model server).
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

COPY tsconfig.json ./
COPY domain ./domain
COPY activities ./activities
COPY workflows ./workflows
COPY infra ./infra
COPY methods ./methods
COPY workers ./workers
COPY schemas ./schemas
COPY scripts ./scripts
COPY configs ./configs
COPY bin ./bin

# The sandbox's interpreter: a venv with hash-pinned numpy and pandas (from PyPI), at
# .tools/sandbox-python, where the worker looks for it.
# (bubblewrap itself cannot be tried here: a build step has no SYS_ADMIN; the worker checks it
# when it starts its sandbox, and says what is missing.)
RUN bash scripts/install-sandbox-python.sh

# Root in the container: the sandbox runs each concurrency slot under a uid of its own (so that
# process limits and clean-up are per sample), which needs CAP_SETUID inside the sandbox.
ENV NODE_ENV=production
# The worker's bundle, made now (bin/lib/launch.mjs): every start of the image loads it instead of
# transpiling the worker's modules through tsx's loader (seconds of CPU at each start).
RUN node bin/run.mjs workers/main.ts --help > /dev/null

# node itself runs the worker (bin/run.mjs imports it in-process), not the `tsx` CLI: the CLI relays
# SIGTERM and SIGKILLs the worker 30 ms later, before the tasks in flight finish and its leases are
# removed (docs/deploy.md).
# V8's young generation at 64 MiB semi-spaces instead of 16: fewer scavenges of the many short-lived
# objects each LLM call and S3 request makes (docs/benchmarks.md, "V8's young generation"); the same flag
# as `npm run worker`.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=64", "bin/run.mjs", "workers/main.ts"]
CMD ["--queues", "sandbox"]
