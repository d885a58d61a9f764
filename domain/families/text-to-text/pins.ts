/**
 * What stored text-to-text problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'da_en rows',
    entry: { name: 'tt-da', family: 'text-to-text', path: 'test.jsonl', subset: 'da_en' },
    texts: {
      rows: jsonLines([
        '{"id":0,"source":"Angiv den konto , som beløbet skal bogføres på . ","target":"Specify the account that the amount will be posted to . "}',
        '{"id":1,"source":"* Opret en salgsordre for varen . ","target":" * Create a sales order for the item .\\n"}',
      ]),
    },
    stored: '941d0f2359494d85591753af5f6ced9d5b41e0cf5c890218cf82638065f77f0b',
    behaviour: '90b7f6fbcef5f8e627544e304eed43e6c04abf3e1c9f3baeaf2e7f7c7279fc65',
  },
  {
    case: 'zh_en rows',
    entry: { name: 'tt-zh', family: 'text-to-text', path: 'test.jsonl', subset: 'zh_en' },
    texts: { rows: jsonLines(['{"id":0,"source":"获取 或 设置 控件 的 名称 。 ","target":"Gets or sets the name of the control . "}']) },
    stored: 'ce4e679e7fc2cb240a6cc9ade4484ec51fc312e183f83fe2bdc8a6c1531899ed',
    behaviour: '03ec534860646c4f17fa36aea9315b8858b3380283ca9b77d8f1516d307056cd',
  },
];
