/**
 * What stored concode problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'rows',
    entry: { name: 'concode', family: 'concode', path: 'concode.parquet' },
    texts: {
      rows: jsonLines([
        '{"id":0,"nl":"check if details are parsed . concode_field_sep Container parent concode_elem_sep boolean isParsed concode_field_sep boolean isParsed","code":"boolean function ( ) { return isParsed ; }"}',
        '{"id":1,"nl":"returns the number of entries. concode_field_sep List<Entry> entries concode_field_sep int size","code":"int function ( ) { return entries . size ( ) ; }"}',
        '{"id":2,"nl":"sets the name concode_field_sep String name concode_field_sep void setName","code":"void function ( String arg0 ) { name = arg0 ; }"}',
      ]),
    },
    stored: '02dc4db5157ebc11e38112e947af1bbdc5a14db005cb6d72bcea38cbdaa45a66',
    behaviour: '61b220dfa6cc4953537714810f45ec360e73ea5798e45759e78b4c449ac8a239',
  },
];
