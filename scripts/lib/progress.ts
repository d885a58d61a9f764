/** A progress bar on stderr when it is a terminal, a line every 10% otherwise (CI logs stay short). */
import cliProgress from 'cli-progress';

export interface Progress {
  update(done: number, total: number, extra?: string): void;
  stop(): void;
}

export function progressBar(label: string, enabled: boolean): Progress {
  if (!enabled) return { update() {}, stop() {} };
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted} {extra}`,
        stream: process.stderr,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, extra = '') {
        if (!started) {
          bar.start(total, done, { extra });
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(done, { extra });
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let lastDecile = -1;
  return {
    update(done, total, extra = '') {
      const decile = total > 0 ? Math.floor((done / total) * 10) : 0;
      if (decile !== lastDecile) {
        lastDecile = decile;
        console.error(`${label}: ${done}/${total} (${decile * 10}%) ${extra}`.trimEnd());
      }
    },
    stop() {},
  };
}
