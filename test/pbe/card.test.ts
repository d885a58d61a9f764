import { describe, expect, it } from 'vitest';
import { applyPipeline, type PipelineStep } from '../../domain/pbe/operations.js';
import { canonicalParamsJson, resolvePbeParams } from '../../domain/pbe/params.js';
import { buildTaskRecord, type IoPair, type PbeTask } from '../../domain/pbe/render.js';
import { compileTaskSchema, readCardText } from './support.js';

const cardText = readCardText();
const card = JSON.parse(cardText) as PbeTask;

/** The card re-rendered from its own data (pipeline, examples, tests, metadata) with our code. */
function renderCardWithOurCode(): PbeTask {
  const { metadata } = card;
  return buildTaskRecord({
    index: Number(card.task_id.slice('pbe-world/'.length)),
    params: { alphabet: metadata.alphabet, split: metadata.split, ...metadata.generation_params },
    pipeline: card.canonical_pipeline as PipelineStep[],
    examples: card.examples as IoPair[],
    tests: card.tests as IoPair[],
  });
}

describe('card conformance', () => {
  const record = renderCardWithOurCode();

  it('has the same keys in the same order', () => {
    expect(Object.keys(record)).toEqual(Object.keys(card));
    expect(Object.keys(record.metadata)).toEqual(Object.keys(card.metadata));
  });

  it.each(Object.keys(card))('field %s is byte-identical', (key) => {
    const ours = JSON.stringify((record as unknown as Record<string, unknown>)[key]);
    const theirs = JSON.stringify((card as unknown as Record<string, unknown>)[key]);
    expect(ours).toBe(theirs);
  });

  it('pretty-prints to the card file byte for byte', () => {
    expect(JSON.stringify(record, null, 2)).toBe(cardText.replace(/\n$/, ''));
  });

  it("card outputs are the card's pipeline applied with our Python semantics", () => {
    for (const pair of [...card.examples, ...card.tests]) {
      expect(applyPipeline(pair.input, card.canonical_pipeline)).toBe(pair.output);
    }
  });

  it('validates against the shipped JSON Schema', () => {
    const validate = compileTaskSchema();
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
  });

  it("default parameters are the card's", () => {
    const defaults = resolvePbeParams({});
    const { metadata } = card;
    const fromCard = resolvePbeParams({
      alphabet: metadata.alphabet,
      split: metadata.split,
      num_examples: metadata.num_examples,
      num_tests: metadata.num_tests,
      ...metadata.generation_params,
    });
    expect(canonicalParamsJson(defaults)).toBe(canonicalParamsJson(fromCard));
  });
});
