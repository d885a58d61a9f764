/**
 * What stored spider problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'rows',
    entry: { name: 'spider', family: 'spider', path: 'spider.parquet' },
    texts: {
      rows: jsonLines([
        '{"db_id":"concert_singer","query":"SELECT count(*) FROM singer","question":"How many singers do we have?","query_toks":["SELECT","count","(","*",")","FROM","singer"],"query_toks_no_value":["select","count","(","*",")","from","singer"],"question_toks":["How","many","singers","do","we","have","?"]}',
        '{"db_id":"concert_singer","query":"SELECT name ,  country ,  age FROM singer ORDER BY age DESC","question":"Show name, country, age for all singers ordered by age from the oldest to the youngest.","query_toks":["SELECT","name",",","country",",","age","FROM","singer","ORDER","BY","age","DESC"],"query_toks_no_value":["select","name",",","country",",","age","from","singer","order","by","age","desc"],"question_toks":["Show","name",",","country",",","age","for","all","singers","ordered","by","age","from","the","oldest","to","the","youngest","."]}',
        '{"db_id":"pets_1","query":"SELECT count(*) FROM student WHERE age  >  20 ","question":" Find the number of students whose age is older than 20. ","query_toks":["SELECT","count","(","*",")","FROM","student","WHERE","age",">","20"],"query_toks_no_value":["select","count","(","*",")","from","student","where","age",">","value"],"question_toks":["Find","the","number","of","students","whose","age","is","older","than","20","."]}',
      ]),
    },
    stored: '6dd2170c44343349643d2717b93487029b94acb5fdf6fc15b871938dc6dab2de',
    behaviour: '804b3e5f959076a0b6aeb5ba840006d9e0cb220b5da0c9835c31507baf736de3',
  },
];
