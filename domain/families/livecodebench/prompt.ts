/**
 * LiveCodeBench's code-generation prompt for a generic chat model (lcb_runner/prompts/code_generation.py:
 * PromptConstants and get_generic_question_template_answer, the OpenAIChat style): its system
 * message, and the question with the format to answer in, with or without starter code.
 */

export const LCB_SYSTEM_MESSAGE =
  'You are an expert Python programmer. You will be given a question (problem specification) and will generate a correct Python program that matches the specification and passes all tests.';

export const LCB_FORMAT_WITH_STARTER_CODE =
  'You will use the following starter code to write the solution to the problem and enclose your code within delimiters.';

export const LCB_FORMAT_WITHOUT_STARTER_CODE =
  'Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.';

/** The code in LiveCodeBench's fenced block: the starter code, or its placeholder for a standard-input task. */
export function lcbFencedCode(starterCode: string): string {
  return starterCode ? starterCode : '# YOUR CODE HERE';
}

/** The text before the fenced block: the question and the format line. */
export function lcbInstruction(questionContent: string, starterCode: string): string {
  return `### Question:\n${questionContent}\n\n### Format: ${starterCode ? LCB_FORMAT_WITH_STARTER_CODE : LCB_FORMAT_WITHOUT_STARTER_CODE}`;
}

/** LiveCodeBench's user message, byte for byte (get_generic_question_template_answer). */
export function lcbUserMessage(questionContent: string, starterCode: string): string {
  return (
    `${lcbInstruction(questionContent, starterCode)}\n` +
    `\`\`\`python\n${lcbFencedCode(starterCode)}\n\`\`\`\n\n` +
    '### Answer: (use the provided format with backticks)\n\n'
  );
}
