"""
Writes the CodeXGLUE classification test rows (test/support/classification-rows.ts, as JSON on
stdin: {"clone": [...], "defect": [...]}) as Parquet files the way Hugging Face publishes those
sets (data/test-00000-of-00001.parquet): pyarrow, snappy, the `datasets` features as the Arrow
schema (int32 ids, string code, bool labels) and the `huggingface` schema metadata.
Run once to refresh the committed fixtures (pyarrow 17.0.0):
  npx tsx -e "import('./test/support/classification-rows.ts').then(m => console.log(JSON.stringify({clone: m.CLONE_ROWS, defect: m.DEFECT_ROWS})))" \
    | python write_codexglue_parquet.py test/support/parquet
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMAS = {
    "clone": [("id", pa.int32(), "int32"), ("id1", pa.int32(), "int32"), ("id2", pa.int32(), "int32"),
              ("func1", pa.string(), "string"), ("func2", pa.string(), "string"), ("label", pa.bool_(), "bool")],
    "defect": [("id", pa.int32(), "int32"), ("func", pa.string(), "string"), ("target", pa.bool_(), "bool"),
               ("project", pa.string(), "string"), ("commit_id", pa.string(), "string")],
}


def main():
    rows = json.load(sys.stdin)
    out = sys.argv[1]
    for name, fields in SCHEMAS.items():
        features = {f: {"dtype": dtype, "_type": "Value"} for f, _, dtype in fields}
        schema = pa.schema([(f, t) for f, t, _ in fields],
                           metadata={"huggingface": json.dumps({"info": {"features": features}})})
        table = pa.Table.from_pylist(rows[name], schema=schema)
        pq.write_table(table, f"{out}/{name}-test-00000-of-00001.parquet", compression="snappy")


if __name__ == "__main__":
    main()
