"""
Writes the CoNaLa, Concode and Spider test rows (test/support/oneline-rows.ts, as JSON on stdin:
{"conala": [...], "concode": [...], "spider": [...]}) as Parquet files the way Hugging Face
publishes those sets: pyarrow, snappy, the `datasets` features as the Arrow schema (neulab/conala
curated: int64 question_id, nullable strings; code_x_glue_tc_text_to_code: int32 id; xlangai/spider:
lists of strings) and the `huggingface` schema metadata.
Run once to refresh the committed fixtures (pyarrow 17.0.0):
  npx tsx -e "import('./test/support/oneline-rows.ts').then(m => console.log(JSON.stringify({conala: m.CONALA_ROWS, concode: m.CONCODE_ROWS, spider: m.SPIDER_ROWS})))" \
    | python write_oneline_parquet.py test/support/parquet
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

STRING = (pa.string(), {"dtype": "string", "_type": "Value"})
STRINGS = (pa.list_(pa.string()), {"feature": {"dtype": "string", "_type": "Value"}, "_type": "Sequence"})
FILES = {
    "conala": ("conala-test-00000-of-00001.parquet",
               [("question_id", (pa.int64(), {"dtype": "int64", "_type": "Value"})), ("intent", STRING),
                ("rewritten_intent", STRING), ("snippet", STRING)]),
    "concode": ("concode-validation-00000-of-00001.parquet",
                [("id", (pa.int32(), {"dtype": "int32", "_type": "Value"})), ("nl", STRING), ("code", STRING)]),
    "spider": ("spider-validation-00000-of-00001.parquet",
               [("db_id", STRING), ("query", STRING), ("question", STRING), ("query_toks", STRINGS),
                ("query_toks_no_value", STRINGS), ("question_toks", STRINGS)]),
}


def main():
    rows = json.load(sys.stdin)
    out = sys.argv[1]
    for name, (file, fields) in FILES.items():
        features = {f: feature for f, (_, feature) in fields}
        schema = pa.schema([(f, t) for f, (t, _) in fields],
                           metadata={"huggingface": json.dumps({"info": {"features": features}})})
        pq.write_table(pa.Table.from_pylist(rows[name], schema=schema), f"{out}/{file}", compression="snappy")


if __name__ == "__main__":
    main()
