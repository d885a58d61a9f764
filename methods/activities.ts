/**
 * The methods' worker faces, one line per method: each kind's activities (LLM queue) and trace
 * writer (storage queue), as workers/methodActivities.ts registers them.
 */
export * from './direct/activities.js';
export * from './rag/activities.js';
export * from './self-repair/activities.js';
export * from './exploracoder/activities.js';
export * from './capir/activities.js';
