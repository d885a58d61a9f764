/**
 * Rows of CoNaLa, Concode and Spider in their owners' formats (Hugging Face's datasets: neulab/conala
 * curated test, code_x_glue_tc_text_to_code validation, xlangai/spider validation), a few each,
 * with the quirks the loaders must keep: CoNaLa's null rewritten_intent and repeated question_id,
 * Concode's class context after "concode_field_sep" and its final period, Spider's token lists.
 * The same rows are committed as Parquet (test/support/parquet/write_oneline_parquet.py).
 */
export const CONALA_ROWS = [
  {
    question_id: 41067960,
    intent: 'How to convert a list of multiple integers into a single integer?',
    rewritten_intent: "concatenate elements of a list 'x' of multiple integers to a single integer",
    snippet: 'sum(d * 10 ** i for i, d in enumerate(x[::-1]))',
  },
  {
    question_id: 41067960,
    intent: 'How to convert a list of multiple integers into a single integer?',
    rewritten_intent: 'convert a list of integers into a single integer',
    snippet: "r = int(''.join(map(str, x)))",
  },
  {
    question_id: 4170655,
    intent: 'how to convert a datetime string back to datetime object?',
    rewritten_intent: null,
    snippet: "datetime.strptime('2010-11-13 10:33:54.227806', '%Y-%m-%d %H:%M:%S.%f')",
  },
  {
    question_id: 29565452,
    intent: 'Averaging the values in a dictionary based on the key',
    rewritten_intent: 'get the average of a list values for each key in dictionary `d`)',
    snippet: '[(i, sum(j) / len(j)) for i, j in list(d.items())]',
  },
];

export const CONCODE_ROWS = [
  {
    id: 0,
    nl: 'check if details are parsed . concode_field_sep Container parent concode_elem_sep boolean isParsed concode_field_sep boolean isParsed',
    code: 'boolean function ( ) { return isParsed ; }',
  },
  {
    id: 1,
    nl: 'returns the number of entries. concode_field_sep List<Entry> entries concode_field_sep int size',
    code: 'int function ( ) { return entries . size ( ) ; }',
  },
  {
    id: 2,
    nl: 'sets the name concode_field_sep String name concode_field_sep void setName',
    code: 'void function ( String arg0 ) { name = arg0 ; }',
  },
];

export const SPIDER_ROWS = [
  {
    db_id: 'concert_singer',
    query: 'SELECT count(*) FROM singer',
    question: 'How many singers do we have?',
    query_toks: ['SELECT', 'count', '(', '*', ')', 'FROM', 'singer'],
    query_toks_no_value: ['select', 'count', '(', '*', ')', 'from', 'singer'],
    question_toks: ['How', 'many', 'singers', 'do', 'we', 'have', '?'],
  },
  {
    db_id: 'concert_singer',
    query: 'SELECT name ,  country ,  age FROM singer ORDER BY age DESC',
    question: 'Show name, country, age for all singers ordered by age from the oldest to the youngest.',
    query_toks: ['SELECT', 'name', ',', 'country', ',', 'age', 'FROM', 'singer', 'ORDER', 'BY', 'age', 'DESC'],
    query_toks_no_value: ['select', 'name', ',', 'country', ',', 'age', 'from', 'singer', 'order', 'by', 'age', 'desc'],
    question_toks: [
      'Show',
      'name',
      ',',
      'country',
      ',',
      'age',
      'for',
      'all',
      'singers',
      'ordered',
      'by',
      'age',
      'from',
      'the',
      'oldest',
      'to',
      'the',
      'youngest',
      '.',
    ],
  },
  {
    db_id: 'pets_1',
    query: 'SELECT count(*) FROM student WHERE age  >  20 ',
    question: ' Find the number of students whose age is older than 20. ',
    query_toks: ['SELECT', 'count', '(', '*', ')', 'FROM', 'student', 'WHERE', 'age', '>', '20'],
    query_toks_no_value: ['select', 'count', '(', '*', ')', 'from', 'student', 'where', 'age', '>', 'value'],
    question_toks: ['Find', 'the', 'number', 'of', 'students', 'whose', 'age', 'is', 'older', 'than', '20', '.'],
  },
];

/** JSON Lines of rows. */
export const jsonl = (rows: readonly object[]): string => rows.map((r) => JSON.stringify(r) + '\n').join('');

/** Per task, the generations a test's model gives (sample 0 first): exact, near and wrong answers. */
export const ONE_LINE_GENERATIONS = {
  conala: [
    ['sum(d * 10 ** i for i, d in enumerate(x[::-1]))', 'int(x)'],
    ["int(''.join(str(i) for i in x))", "r = int(''.join(map(str, x)))"],
    ["datetime.datetime.strptime(s, '%Y-%m-%d %H:%M:%S.%f')", 'no'],
    ['{k: sum(v) / len(v) for k, v in d.items()}', ''],
  ],
  concode: [
    ['boolean function ( ) { return isParsed ; }', 'x'],
    ['int function ( ) { return size ; }', 'int function ( ) { return entries . size ( ) ; }'],
    ['void function ( String arg0 ) { this . name = arg0 ; }', ''],
  ],
  spider: [
    ['SELECT count(*) FROM singer', 'SELECT * FROM singer'],
    ['SELECT name, country FROM singer ORDER BY age', 'x'],
    ['SELECT count(*) FROM student WHERE age > 20', ''],
  ],
} as const;
