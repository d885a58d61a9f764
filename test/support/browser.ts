/**
 * Debian's headless Chromium driven by playwright-core (no browser download): a fresh profile per
 * launch, and every request that is not a local file refused and recorded, so a page that needs
 * the network shows up in `external`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface OpenBrowser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page's scripts. */
  errors: string[];
  /** Requests to anything but file:// (refused). */
  external: string[];
  close: () => Promise<void>;
}

export async function openBrowser(): Promise<OpenBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/install-browser.sh`);
  const profile = mkdtempSync(path.join(os.tmpdir(), 'explora-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  const errors: string[] = [];
  const external: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    external.push(url);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => errors.push(e.message));
  return {
    context,
    page,
    errors,
    external,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface CanvasInk {
  id: string;
  width: number;
  height: number;
  /** Pixels drawn at all (alpha > 0). */
  inked: number;
  /** Per hex color: pixels within a small distance of it. */
  byColor: Record<string, number>;
}

/** What each canvas of the page has drawn: all pixels, and those of the given colors. */
export async function canvasInk(page: Page, colors: string[]): Promise<CanvasInk[]> {
  return page.evaluate((colors) => {
    interface CanvasLike {
      id: string;
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
    }
    const document = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<CanvasLike> } }).document;
    const rgb = colors.map((c) => [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)] as const);
    return Array.from(document.querySelectorAll('canvas')).map((canvas) => {
      const ctx = canvas.getContext('2d')!;
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let inked = 0;
      const byColor: Record<string, number> = Object.fromEntries(colors.map((c) => [c, 0]));
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3]! === 0) continue;
        inked++;
        if (data[i + 3]! < 200) continue;
        rgb.forEach(([r, g, b], j) => {
          if (Math.abs(data[i]! - r) + Math.abs(data[i + 1]! - g) + Math.abs(data[i + 2]! - b) < 24) byColor[colors[j]!]!++;
        });
      }
      return { id: canvas.id, width: canvas.width, height: canvas.height, inked, byColor };
    });
  }, colors);
}
