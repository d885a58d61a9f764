/**
 * A Parquet file written a row group at a time (hyparquet-writer's ParquetWriter over its file
 * writer), from rows and the columns that read them (domain/export/tables.ts): memory holds one
 * group of rows, whatever the number of rows in all.
 */
import { renameSync, rmSync } from 'node:fs';
import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import type { Column, ColumnType } from '../domain/export/tables.js';

/** Rows per row group: large enough for readers' scans, small enough to keep memory flat. */
const ROWS_PER_GROUP = 20_000;

// The writer's own schema type (it pins a hyparquet of its own, whose types may differ from ours).
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

// JSON columns are UTF-8 text to every reader (pandas, Polars and DuckDB read them as strings).
const PHYSICAL: Record<ColumnType, Pick<SchemaElement, 'type' | 'converted_type'>> = {
  STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  JSON: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  INT64: { type: 'INT64' },
  DOUBLE: { type: 'DOUBLE' },
  BOOLEAN: { type: 'BOOLEAN' },
};

export class ParquetTableWriter<Row> {
  private readonly writer: ParquetWriter;
  private readonly partial: string;
  private pending: Row[] = [];
  private rows = 0;

  /** Writes to `<path>.partial` until closed, then renames it: a file at `path` is always whole. */
  constructor(
    private readonly path: string,
    private readonly columns: ReadonlyArray<Column<Row>>,
    metadata: Record<string, string>,
  ) {
    this.partial = `${path}.partial`;
    const schema: SchemaElement[] = [
      { name: 'root', num_children: columns.length },
      ...columns.map((c) => ({
        name: c.name,
        ...PHYSICAL[c.type],
        repetition_type: c.nullable ? ('OPTIONAL' as const) : ('REQUIRED' as const),
      })),
    ];
    this.writer = new ParquetWriter({
      writer: fileWriter(this.partial),
      schema,
      kvMetadata: Object.entries(metadata).map(([key, value]) => ({ key, value })),
      createdBy: 'explora',
    });
  }

  async add(row: Row): Promise<void> {
    this.pending.push(row);
    if (this.pending.length >= ROWS_PER_GROUP) await this.flush();
  }

  /** The rows written so far. */
  get count(): number {
    return this.rows + this.pending.length;
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const columnData = this.columns.map((column) => ({
      name: column.name,
      data: rows.map((row) => {
        const value = column.value(row);
        if (value === null && !column.nullable) throw new Error(`export: column ${column.name} has no value for a row`);
        return column.type === 'INT64' && value !== null ? BigInt(value as number) : value;
      }),
    }));
    await this.writer.write({ columnData, rowGroupSize: rows.length });
    this.rows += rows.length;
  }

  /** Writes the last rows and the footer, then puts the file in its place. */
  async close(): Promise<void> {
    await this.flush();
    await this.writer.finish();
    renameSync(this.partial, this.path);
  }

  /** Leaves nothing behind after a failure. */
  abandon(): void {
    rmSync(this.partial, { force: true });
  }
}
