/**
 * The path a scripted server's base URL carries before `/v1`: `/scripted-<random>`, one per server.
 * The LLM cache keys a request by its endpoint's base URL and body, and the test stack's bucket
 * outlives every test: without it, a server that is given an earlier server's port (the kernel
 * hands ports out again) would be answered from that server's cache, and a test counting requests
 * would see fewer than were sent. Requests under any such prefix are served, so a server restarted
 * on its port still answers the base URL its sweep was configured with.
 */
import { randomBytes } from 'node:crypto';

export function endpointPrefix(): string {
  return `/scripted-${randomBytes(6).toString('hex')}`;
}

/** The request path without its scripted prefix: `/scripted-ab12/v1/models` → `/v1/models`. */
export function withoutEndpointPrefix(path: string): string {
  return path.replace(/^\/scripted-[0-9a-f]+(?=\/)/, '');
}
