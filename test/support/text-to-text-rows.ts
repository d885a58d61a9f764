/**
 * Rows of CodeXGLUE text-to-text in its owners' format (Hugging Face's code_x_glue_tt_text_to_text,
 * one config per pair, test split: int32 id, source, target), a few per pair, with the quirks the
 * loader must keep: the sets' tokenized text with a space before punctuation and a trailing space,
 * a target with surrounding whitespace (bigcode strips it), HTML entities in the Latvian rows.
 */
export const TEXT_TO_TEXT_ROWS = {
  da_en: [
    {
      id: 0,
      source: 'Angiv den konto , som beløbet skal bogføres på . ',
      target: 'Specify the account that the amount will be posted to . ',
    },
    {
      id: 1,
      source: '* Opret en salgsordre for varen . ',
      target: ' * Create a sales order for the item .\n',
    },
    {
      id: 2,
      source: 'Vælg feltet **Nummer** for at åbne vinduet **Kunder** . ',
      target: 'Choose the **Number** field to open the **Customers** window . ',
    },
  ],
  zh_en: [
    {
      id: 0,
      source: '获取 或 设置 控件 的 名称 。 ',
      target: 'Gets or sets the name of the control . ',
    },
    {
      id: 1,
      source: '返回 指定 索引 处 的 元素 。 ',
      target: 'Returns the element at the specified index . ',
    },
  ],
  lv_en: [
    {
      id: 0,
      source: 'title : Pārdošanas pasūtījuma izveide ',
      target: 'title : Create a sales order ',
    },
    {
      id: 1,
      source: '&lt; a name = &quot; step-1 &quot; &gt; &lt; / a &gt; 1 . Atveriet lapu ',
      target: '&lt; a name = &quot; step-1 &quot; &gt; &lt; / a &gt; 1 . Open the page ',
    },
  ],
  no_en: [
    {
      id: 0,
      source: 'Velg **OK** for å lukke vinduet . ',
      target: 'Choose **OK** to close the window . ',
    },
    {
      id: 1,
      source: 'Angi datoen da ordren ble opprettet . ',
      target: 'Specify the date when the order was created . ',
    },
  ],
} as const;

/** Per pair and task, the completions a test's model gives (sample 0 first): exact, near, wrong and empty answers. */
export const TEXT_TO_TEXT_GENERATIONS = {
  da_en: [
    [' Specify the account that the amount is posted to . ', 'x'],
    ['* Create a sales order for the item .', ''],
    ['', 'Choose the **Number** field to open the **Customers** window .'],
  ],
  zh_en: [['Gets or sets the control name .'], ['Returns the element at the given index .']],
  lv_en: [['title : Creating a sales order'], ['1 . Open the page']],
  no_en: [['Choose **OK** to close the window . '], ['Enter the date the order was made .']],
} as const;
