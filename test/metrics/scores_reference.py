"""The independent side of test/metrics/scores-reference.test.ts: BLEU, CodeXGLUE's smoothed BLEU and
classification scores computed by the Python packages bigcode's numbers come from, on the JSON on
stdin; JSON on stdout. Run with the test venv (scripts/install-test-python.sh), never the product's.

- 13a tokenization and BLEU's n-gram statistics: sacrebleu 2.4.3. Hugging Face's `bleu` metric (on the
  Hub, unreachable here) tokenizes with a copy of sacrebleu's Tokenizer13a and returns its output
  split on whitespace, then runs tensorflow/nmt's compute_bleu. For one reference per prediction,
  sacrebleu's counts (clipped n-gram matches per order), totals (len - n + 1 per segment, summed),
  sys_len and ref_len (the closest reference = the only one) are nmt's matches_by_order,
  possible_matches_by_order, translation_length and reference_length, and without smoothing
  sacrebleu's score / 100 is nmt's BLEU (both are 0 when any precision is 0; both use
  exp(1 - r / c) below the reference length). sacrebleu's add-k smoothing skips unigrams, nmt's
  smooth=True does not, so for smooth=True (bigcode's setting) nmt's last step is applied below to
  sacrebleu's statistics: that step (five lines, written from nmt's published bleu.py) is the only
  part not computed by an independent package.
- CodeXGLUE's smoothed BLEU: lm-eval 0.4.5 ships CodeXGLUE's evaluator bleu.py (type hints added, the
  computation unchanged; compared with bigcode's copy line by line); loaded here by path. The few
  lines of bigcode's compute_codexglue_code_to_text_bleu that call it (tab cut, strip, lower) are
  repeated here.
- Classification: scikit-learn 1.5.2's accuracy_score and f1_score, which Hugging Face's `accuracy`
  and `f1` metrics call.
- Spider's remove_distinct: the evaluator's two lines (test-suite-sql-eval, not on PyPI) over
  sqlparse 0.5.2's tokens.
"""
import importlib.util
import json
import math
import os
import sys
import sysconfig

import sqlparse
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sklearn.metrics import accuracy_score, f1_score

TOKENIZER = Tokenizer13a()


def load_codexglue_bleu():
    path = os.path.join(sysconfig.get_paths()["purelib"], "lm_eval", "tasks", "code_x_glue", "code-text", "bleu.py")
    spec = importlib.util.spec_from_file_location("codexglue_bleu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CODEXGLUE = load_codexglue_bleu()


def nmt_from_stats(counts, totals, sys_len, ref_len, smooth, max_order=4):
    if smooth:
        precisions = [(c + 1.0) / (t + 1.0) for c, t in zip(counts, totals)]
    else:
        precisions = [c / t if t > 0 else 0.0 for c, t in zip(counts, totals)]
    geo_mean = math.exp(sum((1.0 / max_order) * math.log(p) for p in precisions)) if min(precisions) > 0 else 0
    ratio = float(sys_len) / ref_len
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio)
    return {"bleu": geo_mean * bp, "precisions": precisions, "brevity_penalty": bp}


def corpus(c):
    hyps = [TOKENIZER(p) for p in c["predictions"]]
    refs = [TOKENIZER(r) for r in c["references"]]
    # The text is already 13a-tokenized: sacrebleu's "none" only splits it on whitespace.
    score = BLEU(tokenize="none", smooth_method="none", max_ngram_order=4, effective_order=False).corpus_score(hyps, [refs])
    out = {
        "counts": list(score.counts),
        "totals": list(score.totals),
        "sys_len": score.sys_len,
        "ref_len": score.ref_len,
        "sacrebleu_unsmoothed": score.score / 100.0,
    }
    for smooth in (False, True):
        try:
            key = "nmt_smooth" if smooth else "nmt"
            out[key] = nmt_from_stats(score.counts, score.totals, score.sys_len, score.ref_len, smooth)
        except ZeroDivisionError:
            out[key] = None
    return out


def codexglue(pairs):
    gold_map, predicted_map = {}, {}
    for ix, (gold_str, predicted_str) in enumerate((p["reference"], p["prediction"]) for p in pairs):
        gold = gold_str.strip().split("\t")[0]
        gold_map[ix] = [CODEXGLUE.splitPuncts(gold.strip().lower())]
        pred = predicted_str.strip().split("\t")[0]
        predicted_map[ix] = [CODEXGLUE.splitPuncts(pred.strip().lower())]
    return {
        "bleu": CODEXGLUE.bleuFromMaps(gold_map, predicted_map)[0],
        "sentences": [CODEXGLUE.bleu(gold_map[i], predicted_map[i][0])[0] for i in range(len(pairs))],
        "split": [predicted_map[i][0] for i in range(len(pairs))],
    }


def classification(c):
    y_true, y_pred = c["references"], c["predictions"]
    return {
        "accuracy": accuracy_score(y_true, y_pred),
        "f1_macro": f1_score(y_true, y_pred, average="macro"),
        "f1_positive": f1_score(y_true, y_pred, labels=[c["positive"]], average=None)[0],
    }


def remove_distinct(s):
    tokens = [t.value for t in list(sqlparse.parse(s)[0].flatten())]
    return "".join([t for t in tokens if t.lower() != "distinct"])


def main():
    data = json.load(sys.stdin)
    json.dump(
        {
            "tokens": [TOKENIZER(s).split() for s in data["texts"]],
            "corpora": [corpus(c) for c in data["corpora"]],
            "codexglue": [codexglue(pairs) for pairs in data["codexglue"]],
            "classification": [classification(c) for c in data["classification"]],
            "remove_distinct": [remove_distinct(q) for q in data["sql"]],
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
