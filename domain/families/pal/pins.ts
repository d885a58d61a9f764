/**
 * What stored pal problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'GSM8K',
    entry: { name: 'gsm8k', family: 'pal', path: 'test.jsonl' },
    texts: {
      rows: jsonLines([
        '{"question": "Janet\\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers\' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers\' market?", "answer": "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\\nShe makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\\u2019s market.\\n#### 18"}',
        '{"question": "A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?", "answer": "It takes 2/2=<<2/2=1>>1 bolt of white fiber\\nSo the total amount of fabric is 2+1=<<2+1=3>>3 bolts of fabric\\n#### 3"}',
        '{"question": "Josh decides to try flipping a house.  He buys a house for $80,000 and then puts in $50,000 in repairs.  This increased the value of the house by 150%.  How much profit did he make?", "answer": "The cost of the house and repairs came out to 80,000+50,000=$<<80000+50000=130000>>130,000\\nHe increased the value of the house by 80,000*1.5=<<80000*1.5=120000>>120,000\\nSo the new value of the house is 120,000+80,000=$<<120000+80000=200000>>200,000\\nSo he made a profit of 200,000-130,000=$<<200000-130000=70000>>70,000\\n#### 70000"}',
      ]),
    },
    stored: 'f8b097fe11d4293ebf54f07a00f09c98e0bc2a8f481f957c9c867427d8371a86',
    behaviour: 'd953caffefdc6889f5ca3ff2b083356f71904096eefba812a014f7023e544363',
  },
  {
    case: 'GSM-HARD',
    entry: { name: 'gsm-hard', family: 'pal', path: 'gsmhardv2.jsonl' },
    texts: {
      rows: jsonLines([
        '{"input": "Janet\\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with 4933828. She sells the remainder at the farmers\' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers\' market?", "code": "def solution():\\n    \\"\\"\\"Janet\\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with 4933828. She sells the remainder at the farmers\' market daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers\' market?\\"\\"\\"\\n    eggs_per_day = 16\\n    eggs_breakfast = 3\\n    eggs_muffins = 4933828\\n    eggs_used = eggs_breakfast + eggs_muffins\\n    eggs_sold = eggs_per_day - eggs_used\\n    price_per_egg = 2\\n    money_made = eggs_sold * price_per_egg\\n    result = money_made\\n    return result", "target": -9867630.0}',
        '{"input": "A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?", "code": "def solution():\\n    \\"\\"\\"A robe takes 2 bolts of blue fiber and half that much white fiber.  How many bolts in total does it take?\\"\\"\\"\\n    blue_fiber = 2\\n    white_fiber = blue_fiber / 2\\n    total_fiber = blue_fiber + white_fiber\\n    result = total_fiber\\n    return result", "target": 3.0}',
      ]),
    },
    stored: '4723ba98b46e246e2dee07cf1ce92d5a6e8f195725cb13863dd1a101cd22375d',
    behaviour: '79a6e59c18e138eba2a4f838fcf5b0eac2e36bcce28bdd702880d1dbd90e71a4',
  },
];
