/**
 * Planner demos drawn from a library's own usage, never from a benchmark task. The paper's planner
 * examples are the library's example code turned into a requirement and abstract steps that name
 * an API ("Open a file using FileOpener"); its prompts carry no benchmark knowledge. Libraries whose
 * docs bring no multi-step usage examples get library-level ones written here: generic uses of the
 * library's APIs, written without reading any benchmark task, with no literal arguments (a step
 * names what it does and the API that does it, never the values).
 *
 * - Python's `str` (PBE World public): STR_DEMOS.
 * - PBE World's private module: the same kinds of uses over its four functions (privateDemos).
 * - MonkeyEval / BeatNumEval: pandas / numpy uses written in the original names and renamed
 *   identifier by identifier through the dataset's own keyword map (renamedDemos), so they name the
 *   private APIs exactly as the docs do.
 * - A user's library (`library: { api_docs }`): one demo per documented API that has examples
 *   (docExampleDemos); none otherwise (the trace then shows the planner had no demos).
 */
import type { ApiDoc, PlannerExample } from './library.js';
import { firstSentence } from './corpus.js';

interface DemoSource {
  id: string;
  requirement: string;
  /** Steps, each naming its API as `{api}` placeholders resolved by the library at hand. */
  subtasks: string[];
}

const STR_DEMOS: DemoSource[] = [
  {
    id: 'str-normalise-name',
    requirement: 'Normalise the name a person typed: drop the blanks around it and write it with capital initials.',
    subtasks: ['Remove the whitespace at both ends of the name using str.strip', 'Give every word a capital first letter using str.title'],
  },
  {
    id: 'str-tag-list',
    requirement: 'Turn a comma-separated line of tags into a list of clean lower-case tags.',
    subtasks: [
      'Split the line at the separator using str.split',
      'Remove the whitespace around each tag using str.strip',
      'Convert each tag to lower case using str.lower',
    ],
  },
  {
    id: 'str-slug',
    requirement: 'Make a URL slug from a title: lower case, with the spaces replaced by a dash.',
    subtasks: ['Convert the title to lower case using str.lower', 'Replace every space with a dash using str.replace'],
  },
  {
    id: 'str-code-check',
    requirement: 'Check whether a product code, ignoring the padding around it, consists of digits only.',
    subtasks: ['Remove the padding at both ends of the code using str.strip', 'Test whether every character is a digit using str.isdigit'],
  },
  {
    id: 'str-file-extension',
    requirement: 'Get the extension of a file name in lower case, without the dot.',
    subtasks: ['Split the name once at its last dot using str.rpartition', 'Convert the part after the dot to lower case using str.lower'],
  },
  {
    id: 'str-count-word',
    requirement: 'Count how often a word occurs in a sentence, whatever its case.',
    subtasks: [
      'Fold the sentence to a caseless form using str.casefold',
      'Count the non-overlapping occurrences of the word using str.count',
    ],
  },
  {
    id: 'str-fixed-width',
    requirement: 'Show an identifier right-aligned in a fixed-width column padded with zeros.',
    subtasks: ['Pad the identifier on the left with zeros to the width using str.zfill'],
  },
  {
    id: 'str-shout',
    requirement: 'Turn a message into a shouted headline: upper case, without trailing punctuation.',
    subtasks: ['Remove the punctuation at the end of the message using str.rstrip', 'Convert every letter to upper case using str.upper'],
  },
  {
    id: 'str-join-words',
    requirement: 'Collapse the runs of whitespace in a text into single spaces.',
    subtasks: ['Split the text into words at any whitespace using str.split', 'Join the words with one space using str.join'],
  },
  {
    id: 'str-prefix',
    requirement: 'Remove a known prefix from a log line and find where the message starts.',
    subtasks: [
      'Remove the prefix if the line starts with it using str.removeprefix',
      'Find the position of the first separator using str.find',
    ],
  },
  {
    id: 'str-swap-case',
    requirement: 'Invert the case of every letter of a word and centre it in a banner.',
    subtasks: ['Swap upper and lower case letters using str.swapcase', 'Centre the word in a line of the banner width using str.center'],
  },
  {
    id: 'str-clean-markers',
    requirement: 'Delete a marker from a text and tidy the ends of what is left.',
    subtasks: ['Delete every occurrence of the marker using str.replace', 'Remove the leftover whitespace at both ends using str.strip'],
  },
];

/** The private module's demos: uses of its four functions, by operation. */
const PRIVATE_DEMOS: Array<{ id: string; requirement: string; subtasks: Array<[op: string, text: string]> }> = [
  {
    id: 'private-headline',
    requirement: 'Turn a short title into a headline written in capitals, without the padding characters around it.',
    subtasks: [
      ['strip', 'Remove the padding characters at both ends of the title'],
      ['upper', 'Write every letter of the title in its capital form'],
    ],
  },
  {
    id: 'private-identifier',
    requirement: 'Make a lower-case identifier from a label whose words are separated by a separator character.',
    subtasks: [
      ['lower', 'Write every letter of the label in its small form'],
      ['replace', 'Change every separator into an underscore'],
    ],
  },
  {
    id: 'private-censor',
    requirement: 'Hide a forbidden word in a message by changing it into a placeholder, then tidy the ends of the message.',
    subtasks: [
      ['replace', 'Change every occurrence of the forbidden word into the placeholder'],
      ['strip', 'Remove the unwanted characters at both ends of the message'],
    ],
  },
  {
    id: 'private-shout',
    requirement: 'Shout a message: every letter in capitals and every full stop changed into an exclamation mark.',
    subtasks: [
      ['upper', 'Write every letter of the message in its capital form'],
      ['replace', 'Change every full stop into an exclamation mark'],
    ],
  },
  {
    id: 'private-quiet',
    requirement: 'Write a shouted word in small letters and remove the quotation marks around it.',
    subtasks: [
      ['strip', 'Remove the quotation marks at both ends of the word'],
      ['lower', 'Write every letter of the word in its small form'],
    ],
  },
  {
    id: 'private-spaces',
    requirement: 'Turn the underscores of a file stem into spaces and drop the digits at its ends.',
    subtasks: [
      ['replace', 'Change every underscore into a space'],
      ['strip', 'Remove the digit characters at both ends'],
    ],
  },
  {
    id: 'private-code',
    requirement: 'Normalise a product code: remove the dashes inside it and write it in capitals.',
    subtasks: [
      ['replace', 'Delete every dash by changing it into the empty string'],
      ['upper', 'Write every letter in its capital form'],
    ],
  },
  {
    id: 'private-delete-two',
    requirement: 'Remove two different filler words from a sentence and write what is left in small letters.',
    subtasks: [
      ['replace', 'Delete the first filler word'],
      ['replace', 'Delete the second filler word'],
      ['lower', 'Write every letter in its small form'],
    ],
  },
];

/** Demos for Python's `str` (PBE World with the public library). */
export function strDemos(): PlannerExample[] {
  return STR_DEMOS.map((d) => ({ ...d }));
}

/** Demos for PBE World's private module, naming its functions as `<module>.<name>`. */
export function privateDemos(module: string, functionOf: (operation: string) => string): PlannerExample[] {
  return PRIVATE_DEMOS.map((d) => ({
    id: d.id,
    requirement: d.requirement,
    subtasks: d.subtasks.map(([op, text]) => `${text} using ${module}.${functionOf(op)}`),
  }));
}

/** pandas uses, in pandas' own names (renamed for MonkeyEval by renamedDemos). */
const PANDAS_DEMOS: DemoSource[] = [
  {
    id: 'pandas-clean-missing',
    requirement: 'Load a table from a dict of columns and drop the rows that have missing values.',
    subtasks: [
      'Build the table from the dict using pandas.DataFrame',
      'Drop the rows holding missing values using pandas.DataFrame.dropna',
    ],
  },
  {
    id: 'pandas-group-mean',
    requirement: 'Compute the mean of a numeric column for each category of another column.',
    subtasks: [
      'Group the rows by the category column using pandas.DataFrame.groupby',
      'Take the mean of the numeric column in each group using pandas.DataFrame.mean',
    ],
  },
  {
    id: 'pandas-top-rows',
    requirement: 'Sort a table by a column, largest first, and keep its first rows.',
    subtasks: [
      'Sort the rows by the column in descending order using pandas.DataFrame.sort_values',
      'Keep the first rows using pandas.DataFrame.head',
    ],
  },
  {
    id: 'pandas-rename-drop',
    requirement: 'Rename a column of a table and remove another column.',
    subtasks: ['Rename the column with a mapping using pandas.DataFrame.rename', 'Remove the other column using pandas.DataFrame.drop'],
  },
  {
    id: 'pandas-fill',
    requirement: 'Replace the missing values of a column by the mean of the column.',
    subtasks: [
      'Compute the mean of the column using pandas.Series.mean',
      'Fill the missing values with that mean using pandas.Series.fillna',
    ],
  },
  {
    id: 'pandas-merge',
    requirement: 'Join two tables on a shared key column and count the rows of the result.',
    subtasks: ['Merge the tables on the key using pandas.merge', 'Count the rows of the merged table using len'],
  },
  {
    id: 'pandas-filter-values',
    requirement: 'Keep the rows of a table whose column takes one of a list of values, as a new table with a fresh index.',
    subtasks: [
      'Test each value of the column for membership in the list using pandas.Series.isin',
      'Select the rows where the test holds with boolean indexing',
      'Renumber the index from zero using pandas.DataFrame.reset_index',
    ],
  },
  {
    id: 'pandas-counts',
    requirement: 'Find how often each distinct value occurs in a column and return the counts as a dict.',
    subtasks: ['Count each distinct value using pandas.Series.value_counts', 'Turn the counts into a dict using pandas.Series.to_dict'],
  },
  {
    id: 'pandas-types',
    requirement: 'Convert a text column to numbers and add a column with its running total.',
    subtasks: [
      'Convert the column to numbers using pandas.to_numeric',
      'Compute the running total using pandas.Series.cumsum',
      'Add it as a new column using pandas.DataFrame.assign',
    ],
  },
  {
    id: 'pandas-concat-dedupe',
    requirement: 'Stack two tables with the same columns and remove the duplicated rows.',
    subtasks: ['Put one table below the other using pandas.concat', 'Remove the duplicated rows using pandas.DataFrame.drop_duplicates'],
  },
  {
    id: 'pandas-apply',
    requirement: 'Apply a function to every row of a table and collect the results as a list.',
    subtasks: [
      'Apply the function along the rows using pandas.DataFrame.apply',
      'Turn the resulting column into a list using pandas.Series.tolist',
    ],
  },
  {
    id: 'pandas-dates',
    requirement: 'Parse a column of date strings and keep the rows after a given date.',
    subtasks: [
      'Parse the column into timestamps using pandas.to_datetime',
      'Select the rows whose timestamp is later than the date with boolean indexing',
    ],
  },
];

/** numpy uses, in numpy's own names (renamed for BeatNumEval by renamedDemos). */
const NUMPY_DEMOS: DemoSource[] = [
  {
    id: 'numpy-normalise',
    requirement: 'Scale the rows of a matrix so that each row sums to one.',
    subtasks: [
      'Build an array from the nested lists using numpy.array',
      'Sum each row using numpy.sum along the last axis',
      'Divide each row by its sum with broadcasting',
    ],
  },
  {
    id: 'numpy-stack',
    requirement: 'Put two vectors side by side as the columns of a matrix.',
    subtasks: ['Stack the vectors as columns using numpy.column_stack'],
  },
  {
    id: 'numpy-argmax',
    requirement: 'Find the position of the largest value in each column of a matrix.',
    subtasks: ['Compute the index of the maximum along the first axis using numpy.argmax'],
  },
  {
    id: 'numpy-reshape',
    requirement: 'Turn a flat sequence of values into a matrix of a given number of rows and transpose it.',
    subtasks: [
      'Make an array of the sequence using numpy.array',
      'Give it the wanted number of rows using numpy.reshape',
      'Swap rows and columns using numpy.transpose',
    ],
  },
  {
    id: 'numpy-filter',
    requirement: 'Keep the values of an array that lie between two bounds.',
    subtasks: [
      'Build a boolean mask of the values within the bounds using numpy.logical_and',
      'Select the values where the mask holds using numpy.where',
    ],
  },
  {
    id: 'numpy-unique',
    requirement: 'List the distinct values of an array with how often each occurs.',
    subtasks: ['Find the distinct values and their counts using numpy.unique with return_counts'],
  },
  {
    id: 'numpy-norm',
    requirement: 'Compute the Euclidean length of every row vector of a matrix.',
    subtasks: ['Compute the norm of each row using numpy.linalg.norm along the last axis'],
  },
  {
    id: 'numpy-concat',
    requirement: 'Join two matrices with the same number of columns, one below the other, and count the non-zero entries.',
    subtasks: [
      'Concatenate the matrices along the first axis using numpy.concatenate',
      'Count the non-zero entries using numpy.count_nonzero',
    ],
  },
  {
    id: 'numpy-mean-std',
    requirement: 'Standardise a vector: subtract its mean and divide by its standard deviation.',
    subtasks: ['Compute the mean using numpy.mean', 'Compute the standard deviation using numpy.std', 'Subtract and divide element-wise'],
  },
  {
    id: 'numpy-sort',
    requirement: 'Return the indices that would sort a vector, largest value first.',
    subtasks: ['Compute the sorting indices using numpy.argsort', 'Reverse their order with slicing'],
  },
  {
    id: 'numpy-cumsum',
    requirement: 'Compute the running total of a vector and the positions where it exceeds a threshold.',
    subtasks: ['Compute the running total using numpy.cumsum', 'Find the positions above the threshold using numpy.nonzero'],
  },
  {
    id: 'numpy-split',
    requirement: 'Split a matrix into equal parts along its rows and take the mean of each part.',
    subtasks: ['Split the rows into equal parts using numpy.split', 'Average each part using numpy.mean'],
  },
];

/**
 * Demos of a renamed library (MonkeyEval: pandas -> monkey; BeatNumEval: numpy -> beatnum): the
 * original library's uses with every identifier the keyword map renames replaced by its private
 * name, so a step names the API as the private docs do (`monkey.KnowledgeFrame.sip`).
 */
export function renamedDemos(original: string, toPrivate: ReadonlyMap<string, string>): PlannerExample[] {
  const source = original === 'pandas' ? PANDAS_DEMOS : original === 'numpy' ? NUMPY_DEMOS : [];
  const rename = (text: string) =>
    text.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (word, at: number) => {
      // Only code identifiers are renamed: dotted paths and the API named after "using".
      const dotted = text[at - 1] === '.' || text[at + word.length] === '.';
      const named = /using\s+$/.test(text.slice(0, at));
      return dotted || named ? (toPrivate.get(word) ?? word) : word;
    });
  return source.map((d) => ({ id: d.id, requirement: d.requirement, subtasks: d.subtasks.map(rename) }));
}

/**
 * A user library's demos: one per documented API that comes with usage examples (its requirement
 * the description's first sentence, its one step naming the API). Docs without examples give none.
 */
export function docExampleDemos(docs: readonly ApiDoc[]): PlannerExample[] {
  return docs
    .filter((d) => (d.examples ?? []).length > 0)
    .map((d) => {
      const purpose = firstSentence(d.description).replace(/\.$/, '');
      return { id: `doc:${d.import_path}`, requirement: `${purpose}.`, subtasks: [`${purpose} using ${d.import_path}`] };
    });
}
