/**
 * Heartbeats from loops that finish an item every few milliseconds. Each SDK heartbeat call costs a
 * payload encoding and a call into the native core (which then throttles what reaches the server),
 * so calling it per item is measurable CPU; once a second is far inside every heartbeat timeout.
 */
import { Context } from '@temporalio/activity';

export function throttledHeartbeat(intervalMs = 1000): (details?: unknown) => void {
  // Not at once: the server records every heartbeat that reaches it (a history update costing it
  // milliseconds of CPU), and an activity that finishes within the interval has nothing to say.
  let last = Date.now();
  return (details) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    Context.current().heartbeat(details);
  };
}
