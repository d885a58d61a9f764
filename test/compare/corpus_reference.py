"""The independent side of test/compare/corpus.test.ts: the paired bootstrap of corpus BLEU between two
systems, from their texts: sacreBLEU's 13a tokens, n-gram statistics per task, and Hugging Face
bleu's smoothed formula (TensorFlow NMT's compute_bleu, smooth=True) per resample, fed explora's
resampled task indices. JSON on stdin and stdout. Run with the test venv, never the product's."""
import collections
import json
import math
import sys

import numpy as np
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

ORDER = 4
tok = Tokenizer13a()


def ngrams(tokens):
    out = collections.Counter()
    for n in range(1, ORDER + 1):
        for i in range(len(tokens) - n + 1):
            out[tuple(tokens[i:i + n])] += 1
    return out


def stats(prediction, reference):
    p, r = tok(prediction).split(), tok(reference).split()
    overlap = ngrams(p) & ngrams(r)
    matches = [0] * ORDER
    for g, c in overlap.items():
        matches[len(g) - 1] += c
    possible = [max(0, len(p) - n + 1) for n in range(1, ORDER + 1)]
    return np.array(matches + possible + [len(p), len(r)], dtype=float)


def bleu(s):
    matches, possible, tl, rl = s[:ORDER], s[ORDER:2 * ORDER], s[2 * ORDER], s[2 * ORDER + 1]
    precisions = [(matches[i] + 1.0) / (possible[i] + 1.0) for i in range(ORDER)]
    geo = math.exp(sum(math.log(p) for p in precisions) / ORDER) if min(precisions) > 0 else 0.0
    ratio = tl / rl
    bp = 1.0 if ratio > 1.0 else math.exp(1 - 1.0 / ratio) if ratio > 0 else 0.0
    return geo * bp


def main():
    data = json.load(sys.stdin)
    refs = data["references"]
    a = np.stack([stats(p, r) for p, r in zip(data["a"], refs)])
    b = np.stack([stats(p, r) for p, r in zip(data["b"], refs)])
    d = bleu(a.sum(0)) - bleu(b.sum(0))
    idx = np.asarray(data["resamples"], dtype=np.int64)
    diffs = np.array([bleu(a[i].sum(0)) - bleu(b[i].sum(0)) for i in idx])
    far = int(np.sum(np.abs(diffs - d) >= abs(d) - 1e-12 * max(1.0, abs(d))))
    json.dump({
        "a": bleu(a.sum(0)), "b": bleu(b.sum(0)), "diff": d,
        "low": float(np.percentile(diffs, 2.5)), "high": float(np.percentile(diffs, 97.5)),
        "p": (far + 1) / (len(idx) + 1),
    }, sys.stdout)


main()
