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

/**
 * Makes a test-suite database folder beside concert_singer (as test-suite-sql-eval's databases are
 * laid out): `<databases>/<dbId>/<dbId>.sqlite`, a copy of concert_singer's file, and
 * `<dbId>/<dbId>_b.sqlite`, the same with a sixth singer and no concert table; and a file that is no
 * database (`schema.sql`), which the evaluator does not open.
 */
export function makeTestSuiteDatabase(databases: string, dbId: string): void {
  const folder = path.join(databases, dbId);
  mkdirSync(folder, { recursive: true, mode: 0o755 });
  const source = path.join(databases, 'concert_singer', 'concert_singer.sqlite');
  const variant = `
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
shutil.copyfile(sys.argv[1], sys.argv[3])
c = sqlite3.connect(sys.argv[3])
c.executescript("INSERT INTO singer VALUES (6, 'Ann', 'France', 35, 2.0); DROP TABLE concert;")
c.commit()
open(sys.argv[4], "w").write("CREATE TABLE singer (singer_id INTEGER);\\n")
`;
  const files = [`${dbId}.sqlite`, `${dbId}_b.sqlite`, 'schema.sql'].map((name) => path.join(folder, name));
  execFileSync(PYTHON, ['-c', variant, source, ...files]);
  for (const file of files) chmodSync(file, 0o644);
}
