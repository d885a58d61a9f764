"""The independent side of test/families/text-to-text.test.ts: bigcode's CodeXGLUE text-to-text
prompt, post-processing and score on the JSON on stdin ({"pair", "rows", "generations"}; generations
per task, bigcode's completions after the prompt), JSON on stdout. SOURCE_LANG, the few-shot file,
get_prompt, two_shot_prompt, get_reference and postprocess_generation are written here as bigcode's
codexglue_text_to_text.py and few_shot_examples/codexglue_text_to_text_few_shot_prompts.json have
them (its f-string continued inside the literal, so the continued lines' indentation is in the
prompt). BLEU is scores_reference.py's (sacrebleu 2.4.3's 13a tokens and statistics, nmt's last step
with smooth=True) over each task's first generation, as bigcode's process_results takes gen[0].
Run with the test venv (scripts/install-test-python.sh).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "metrics"))
from scores_reference import corpus  # noqa: E402

SOURCE_LANG = {"da_en": "danish", "zh_en": "chinese", "no_en": "norwegian", "lv_en": "latvian"}

FEW_SHOT = json.loads(r'''{"danish":{"source1":"2 . Udfyld felterne i hvert trin i vejledningen . ","source2":"* Vise rapporter med finansposter og saldi . ","target1":"2 . Fill in the fields in each step of the guide . ","target2":"* View reports that show general ledger entries and balances . "},"chinese":{"source1":"返回 与 筛选器 初始化 由 平台 的 MCDRemoteSystemPlatformFilter 对象 。 ","source2":"用于 将 本地 的 （ 调用 ） 应用 程序 可 见性 首选 项 设置 发现 远程 系统 时 的 类 。 ","target1":"Returns an MCDRemoteSystemPlatformFilter object initialized with a filter by platform . ","target2":"A class used to set the local ( calling ) application visibility preference when discovering remote systems ."},"norwegian":{"source1":"Kosttypesaldo = Kostsentersaldo + Kostobjektsaldo ","source2":"* Vise en liste over bokføringsgrupper som du posterer til kontoen . ","target1":"Cost Type Balance = Cost Center Balance + Cost Object Balance ","target2":"* See a list of posting groups that post to that account . "},"latvian":{"source1":"# # &lt; a name = &quot; 6-change-the-status-of-the-conversion-record-to-ready &quot; &gt; &lt; / a &gt; 6 . Mainiet pārveidošanas ieraksta statusu uz Gatavs ","source2":"title : Preču saņemšanas reģistrēšana pirkšanas pasūtījumā ","target1":"# # 6 . Change the status of the conversion record to Ready ","target2":"title : Record the receipt of goods on the purchase order "}}''')


def two_shot_prompt(entry, text, examples, language):
    prompt = f"\n{language.title()}:\n{examples['source1']}\
                   \nEnglish:\n{examples['target1']}\
                   \n{language.title()}:\n{examples['source2']}\
                   \nEnglish:\n{examples['target2']}\
                   \n{language.title()}:\n{text}\
                   \nEnglish:\n"
    return entry + prompt


def get_prompt(pair, doc):
    language = SOURCE_LANG[pair]
    entry = f"Translate the following documentation from {language.title()} to English:\n"
    return two_shot_prompt(entry, doc["source"], FEW_SHOT[language], language)


def postprocess_generation(generation):
    return generation.split("\nEnglish:\n", 3)[-1].strip()


def main():
    data = json.load(sys.stdin)
    pair = data["pair"]
    prompts = [get_prompt(pair, doc) for doc in data["rows"]]
    generations = [[postprocess_generation(p + g) for g in gens] for p, gens in zip(prompts, data["generations"])]
    gens = [gen[0] for gen in generations]
    refs = [doc["target"].strip() for doc in data["rows"]]
    scored = corpus({"predictions": gens, "references": refs})
    json.dump({"prompts": prompts, "predictions": gens, "references": refs, "bleu": scored["nmt_smooth"]}, sys.stdout)


if __name__ == "__main__":
    main()
