/**
 * PAL's datasets as their owners publish them: GSM8K's test.jsonl (openai/grade-school-math; the
 * same rows as Hugging Face's gsm8k, config main, split test): `question`, and `answer` whose last
 * line is "#### <the answer>"; GSM-HARD's gsmhardv2.jsonl (Hugging Face's
 * reasoning-machines/gsm-hard): `input`, `code` (its PAL program) and `target` (a float). The
 * first rows of each, and bigcode's saved generations for GSM8K's first two
 * (tests/data/pal-gsm8k-greedy_eval_gens.json of bigcode-evaluation-harness).
 */

export const GSM8K_ROWS = [
  {
    question:
      "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
    answer:
      'Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.\n#### 18',
  },
  {
    question: 'A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?',
    answer: 'It takes 2/2=<<2/2=1>>1 bolt of white fiber\nSo the total amount of fabric is 2+1=<<2+1=3>>3 bolts of fabric\n#### 3',
  },
  {
    question:
      'Josh decides to try flipping a house.  He buys a house for $80,000 and then puts in $50,000 in repairs.  This increased the value of the house by 150%.  How much profit did he make?',
    answer:
      'The cost of the house and repairs came out to 80,000+50,000=$<<80000+50000=130000>>130,000\nHe increased the value of the house by 80,000*1.5=<<80000*1.5=120000>>120,000\nSo the new value of the house is 120,000+80,000=$<<120000+80000=200000>>200,000\nSo he made a profit of 200,000-130,000=$<<200000-130000=70000>>70,000\n#### 70000',
  },
];

export const GSM_HARD_ROWS = [
  {
    input:
      "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with 4933828. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
    code: 'def solution():\n    """Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with 4933828. She sells the remainder at the farmers\' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers\' market?"""\n    eggs_per_day = 16\n    eggs_breakfast = 3\n    eggs_muffins = 4933828\n    eggs_used = eggs_breakfast + eggs_muffins\n    eggs_sold = eggs_per_day - eggs_used\n    price_per_egg = 2\n    money_made = eggs_sold * price_per_egg\n    result = money_made\n    return result',
    target: -9867630.0,
  },
  {
    input: 'A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?',
    code: 'def solution():\n    """A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?"""\n    blue_fiber = 2\n    white_fiber = blue_fiber / 2\n    total_fiber = blue_fiber + white_fiber\n    result = total_fiber\n    return result',
    target: 3.0,
  },
];

/** Rows as JSON Lines, the way Python's json.dumps writes them (ASCII escapes, ", " and ": "). */
export function palJsonl(rows: ReadonlyArray<Record<string, unknown>>): string {
  const ascii = (s: string) => s.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const dumps = (row: Record<string, unknown>) =>
    `{${Object.entries(row)
      .map(
        ([k, v]) =>
          `${JSON.stringify(k)}: ${typeof v === 'number' && Number.isInteger(v) && k === 'target' ? v.toFixed(1) : ascii(JSON.stringify(v))}`,
      )
      .join(', ')}}`;
  return rows.map((r) => dumps(r) + '\n').join('');
}

/** bigcode's saved generations for GSM8K's first two tasks: postprocessed programs, each ending in print(solution()). */
export const BIGCODE_SAVED_GENERATIONS = [
  'def solution():\n    """Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers\' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers\' market?"""\n    eggs_per_day = 16\n    eggs_eaten = 3\n    eggs_baked = 4\n    eggs_sold = eggs_per_day - eggs_eaten - eggs_baked\n    price_per_egg = 2\n    money_made = eggs_sold * price_per_egg\n    result = money_made\n    return result\nprint(solution())',
  'def solution():\n    """A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?"""\n    blue_fiber = 2\n    white_fiber = blue_fiber / 2\n    total_fiber = blue_fiber + white_fiber\n    result = total_fiber\n    return result\nprint(solution())',
];
