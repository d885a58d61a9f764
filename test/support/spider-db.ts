/**
 * A Spider database/ folder made for a test: concert_singer/concert_singer.sqlite, a real SQLite
 * file of a few rows (singers and concerts), readable by the sandbox's per-sample uids.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const PYTHON = '/root/.pyenv/versions/3.11.7/bin/python3';

const SCHEMA = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, net_worth REAL);
INSERT INTO singer VALUES (1, 'Joe', 'Netherlands', 52, 30.0), (2, 'Timbaland', 'United States', 32, 5.5),
  (3, 'Justin', 'France', 29, 12.0), (4, 'Rose', 'France', 41, 30.0), (5, 'John', 'United States', 43, 1.25);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, singer_id INTEGER, year TEXT);
INSERT INTO concert VALUES (1, 1, '2014'), (2, 2, '2014'), (3, 2, '2015'), (4, 4, '2015');
""")
c.commit()
`;

/** Makes `<parent>/database/concert_singer/concert_singer.sqlite` (parent made traversable); returns the database folder. */
export function makeSpiderDatabases(parent: string): string {
  // Samples run as their slot's uid: the folders must be traversable and the file readable by others.
  chmodSync(parent, 0o755);
  const databases = path.join(parent, 'database');
  mkdirSync(path.join(databases, 'concert_singer'), { recursive: true, mode: 0o755 });
  const file = path.join(databases, 'concert_singer', 'concert_singer.sqlite');
  execFileSync(PYTHON, ['-c', SCHEMA, file]);
  chmodSync(file, 0o644);
  return databases;
}

/** How many singers the file holds (to see it unchanged after runs). */
export function singerCount(databases: string): number {
  const file = path.join(databases, 'concert_singer', 'concert_singer.sqlite');
  const out = execFileSync(PYTHON, [
    '-c',
    'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from singer").fetchone()[0])',
    file,
  ]);
  return Number(out.toString().trim());
}
