"""
Writes CodeXGLUE code-to-text test rows (test/support/code-to-text-rows.ts, as JSON on stdin:
{"python": [...], "go": [...], ...}) as Parquet files the way Hugging Face publishes
google/code_x_glue_ct_code_to_text (<language>/test-00000-of-00001.parquet): pyarrow, snappy, the
`datasets` features as the Arrow schema (int32 id, strings, lists of strings for the tokens) and the
`huggingface` schema metadata.
Run once to refresh the committed fixtures (pyarrow 17.0.0):
  npx tsx -e "import('./test/support/code-to-text-rows.ts').then(m => console.log(JSON.stringify(m.CODE_TO_TEXT_ROWS)))" \
    | python write_code_to_text_parquet.py test/support/parquet
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

STRING = {"dtype": "string", "_type": "Value"}
FIELDS = [
    ("id", pa.int32(), {"dtype": "int32", "_type": "Value"}),
    ("repo", pa.string(), STRING),
    ("path", pa.string(), STRING),
    ("func_name", pa.string(), STRING),
    ("original_string", pa.string(), STRING),
    ("language", pa.string(), STRING),
    ("code", pa.string(), STRING),
    ("code_tokens", pa.list_(pa.string()), {"feature": STRING, "_type": "Sequence"}),
    ("docstring", pa.string(), STRING),
    ("docstring_tokens", pa.list_(pa.string()), {"feature": STRING, "_type": "Sequence"}),
    ("sha", pa.string(), STRING),
    ("url", pa.string(), STRING),
]


def main():
    rows = json.load(sys.stdin)
    out = sys.argv[1]
    features = {name: feature for name, _, feature in FIELDS}
    schema = pa.schema([(name, kind) for name, kind, _ in FIELDS],
                       metadata={"huggingface": json.dumps({"info": {"features": features}})})
    for language in ("python", "go"):
        table = pa.Table.from_pylist(rows[language], schema=schema)
        pq.write_table(table, f"{out}/code-to-text-{language}-test-00000-of-00001.parquet", compression="snappy")


if __name__ == "__main__":
    main()
