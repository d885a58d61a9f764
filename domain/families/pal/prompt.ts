/**
 * PAL's few-shot prompt for GSM8K and GSM-HARD, as bigcode-evaluation-harness builds it (tasks/gsm.py,
 * few_shot_examples/gsm8k_few_shot_prompts.json): eight worked questions, each followed by
 * "# solution in Python:" and a `solution()` whose docstring is the question, then the task's
 * question; the model continues with its own `solution()`.
 */

/** bigcode's eight examples: the question, and the body of its `solution()`. */
export const PAL_EXAMPLES: ReadonlyArray<{ question: string; body: string }> = Object.freeze([
  {
    question: 'Olivia has $23. She bought five bagels for $3 each. How much money does she have left?',
    body: [
      '    money_initial = 23',
      '    bagels = 5',
      '    bagel_cost = 3',
      '    money_spent = bagels * bagel_cost',
      '    money_left = money_initial - money_spent',
      '    result = money_left',
      '    return result',
    ].join('\n'),
  },
  {
    question:
      'Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?',
    body: [
      '    golf_balls_initial = 58',
      '    golf_balls_lost_tuesday = 23',
      '    golf_balls_lost_wednesday = 2',
      '    golf_balls_left = golf_balls_initial - golf_balls_lost_tuesday - golf_balls_lost_wednesday',
      '    result = golf_balls_left',
      '    return result',
    ].join('\n'),
  },
  {
    question:
      'There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?',
    body: [
      '    computers_initial = 9',
      '    computers_per_day = 5',
      '    num_days = 4  # 4 days between monday and thursday',
      '    computers_added = computers_per_day * num_days',
      '    computers_total = computers_initial + computers_added',
      '    result = computers_total',
      '    return result',
    ].join('\n'),
  },
  {
    question: 'Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?',
    body: [
      '    toys_initial = 5',
      '    mom_toys = 2',
      '    dad_toys = 2',
      '    total_received = mom_toys + dad_toys',
      '    total_toys = toys_initial + total_received',
      '    result = total_toys',
      '    return result',
    ].join('\n'),
  },
  {
    question:
      'Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?',
    body: [
      '    jason_lollipops_initial = 20',
      '    jason_lollipops_after = 12',
      '    denny_lollipops = jason_lollipops_initial - jason_lollipops_after',
      '    result = denny_lollipops',
      '    return result',
    ].join('\n'),
  },
  {
    question: 'Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?',
    body: [
      '    leah_chocolates = 32',
      '    sister_chocolates = 42',
      '    total_chocolates = leah_chocolates + sister_chocolates',
      '    chocolates_eaten = 35',
      '    chocolates_left = total_chocolates - chocolates_eaten',
      '    result = chocolates_left',
      '    return result',
    ].join('\n'),
  },
  {
    question: 'If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?',
    body: [
      '    cars_initial = 3',
      '    cars_arrived = 2',
      '    total_cars = cars_initial + cars_arrived',
      '    result = total_cars',
      '    return result',
    ].join('\n'),
  },
  {
    question:
      'There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?',
    body: [
      '    trees_initial = 15',
      '    trees_after = 21',
      '    trees_added = trees_after - trees_initial',
      '    result = trees_added',
      '    return result',
    ].join('\n'),
  },
]);

/** bigcode's stop word for PAL: a solution ends at the blank lines that separate the examples. */
export const PAL_STOP_WORDS: readonly string[] = Object.freeze(['\n\n\n']);

/** The prompt for one question, character for character bigcode's get_prompt. */
export function palPrompt(question: string): string {
  const shots = PAL_EXAMPLES.map(
    ({ question: q, body }) => `Q: ${q}\n\n# solution in Python:\n\n\ndef solution():\n    """${q}"""\n${body}\n\n\n\n\n\n`,
  ).join('');
  return `${shots}Q: ${question}\n\n# solution in Python:\n\n\n`;
}
