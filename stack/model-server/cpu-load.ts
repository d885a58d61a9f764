/**
 * How many cores other processes keep busy, sampled from /proc/stat minus this process's own CPU
 * time. llama.cpp's CPU threads wait for each other at every step of every token; when another
 * process takes one of their cores, the others spin and decoding slows several-fold (measured on 2
 * cores: 2 threads fell to ~1.6 tok/s where 1 thread still made ~5). So the engine picks its thread
 * count per request from this figure.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

interface Sample {
  busyTicks: number;
  totalTicks: number;
  ownMicros: number;
}

/** USER_HZ: /proc/stat counts in 1/100 s on Linux. */
const TICKS_PER_SECOND = 100;

function readSample(): Sample | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    const own = process.cpuUsage();
    return { busyTicks: busy, totalTicks: busy + idle + iowait, ownMicros: own.user + own.system };
  } catch {
    return null;
  }
}

export class OtherCpuLoad {
  private last: Sample | null = readSample();
  private cores = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 1000) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    const now = readSample();
    const last = this.last;
    this.last = now;
    if (!now || !last || now.totalTicks <= last.totalTicks) return;
    const ncpu = os.cpus().length || 1;
    const wallSeconds = (now.totalTicks - last.totalTicks) / TICKS_PER_SECOND / ncpu;
    const busySeconds = (now.busyTicks - last.busyTicks) / TICKS_PER_SECOND;
    const ownSeconds = (now.ownMicros - last.ownMicros) / 1e6;
    const measured = Math.max(0, (busySeconds - ownSeconds) / wallSeconds);
    // Smooth a little: one sample is one second, and a request lasts several.
    this.cores = 0.5 * this.cores + 0.5 * measured;
  }

  /** Cores' worth of CPU other processes used recently (0 where /proc/stat cannot be read). */
  otherCores(): number {
    return this.cores;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Threads for the next request: the cores others leave free, at least 1, at most `max`. */
export function threadsFor(otherCores: number, max: number, cores = os.cpus().length || 1): number {
  return Math.max(1, Math.min(max, Math.round(cores - otherCores)));
}
