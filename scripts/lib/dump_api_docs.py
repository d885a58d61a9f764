"""Dump a Python library's public API, from the installed library's own docstrings, as an API-doc
corpus: JSON lines of {import_path, name, signature, description, examples?}, the ApiDoc rows
explora reads (domain/apidocs/library.ts, corpus.ts).

    python dump_api_docs.py --out docs.jsonl torchdata.datapipes.iter torchdata.datapipes.map
    python dump_api_docs.py --out - numpy --names mean,std

Each module's public names (its `__all__`, else every name not starting with `_`) that are classes
or functions become one row each; import_path is the module as given plus the name (how a program
imports it), the signature `name(params)` (a class's without `self`), the description the cleaned
docstring without its examples section, and examples that section's doctest lines (Google style
`Example:` / `Examples:` and numpydoc `Examples` + dashes), one string per section. Objects
without a docstring are left out and counted on stderr. Rows are sorted by import path so that the
same library gives the same bytes.
"""
import argparse
import importlib
import inspect
import json
import re
import sys

# A Google-style header ("Example:", "Examples:") or a numpydoc one ("Examples" over dashes).
EXAMPLES_HEADER = re.compile(r"^[ \t]*Examples?[ \t]*(?::[ \t]*$|\n[ \t]*-{3,}[ \t]*$)", re.MULTILINE)
# The next section after the examples ends them: a numpydoc header ("Title" over dashes) or a
# Google one of its known names (a free line ending in a colon, "Specifying a where argument:", is
# part of the examples).
NEXT_SECTION = re.compile(
    r"^[ \t]*(?:[A-Z][A-Za-z ]*\n[ \t]*-{3,}[ \t]*$"
    r"|(?:Args|Arguments|Parameters|Keyword Args|Returns?|Yields?|Raises|Notes?|Warnings?|See Also|Attributes|References|Todo)[ \t]*:[ \t]*$)",
    re.MULTILINE,
)


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(set(names))


def signature_of(name, obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return ""
    if inspect.isclass(obj):
        params = list(sig.parameters.values())
        if params and params[0].name == "self":
            params = params[1:]
        # A class's return annotation (its __init__'s `-> None`) is noise; a function's is kept.
        sig = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    # Annotations name their types' modules in full (torch.utils.data.datapipes.datapipe.IterDataPipe):
    # the type's own name is what a user reads and writes.
    return name + re.sub(r"\b(?:[a-z_][a-z0-9_]*\.)+([A-Z]\w*)", r"\1", str(sig))


def split_examples(doc):
    """(description without the examples sections, [each section's example text])."""
    examples = []
    while True:
        header = EXAMPLES_HEADER.search(doc)
        if header is None:
            break
        body_start = header.end()
        following = NEXT_SECTION.search(doc, body_start + 1)
        body_end = following.start() if following else len(doc)
        body = inspect.cleandoc(doc[body_start:body_end])
        # Doctest-runner directives (torch's `>>> # xdoctest: +SKIP`) are no usage.
        body = "\n".join(line for line in body.split("\n") if not re.match(r"\s*>>>\s*#\s*xdoctest:", line)).strip()
        if body:
            examples.append(body)
        doc = (doc[: header.start()].rstrip() + "\n\n" + doc[body_end:].lstrip()).strip()
    return doc, examples


def dump(module_names, only=None):
    rows, undocumented = {}, []
    for module_name in module_names:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            if only is not None and name not in only:
                continue
            obj = getattr(module, name, None)
            # Classes, functions and numpy's ufuncs (callable objects that are neither); not constants or submodules.
            if not (inspect.isclass(obj) or inspect.isroutine(obj) or type(obj).__name__ == "ufunc"):
                continue
            import_path = module_name + "." + name
            doc = inspect.getdoc(obj)
            if not doc or not doc.strip():
                undocumented.append(import_path)
                continue
            doc = doc.strip()
            signature = signature_of(name, obj)
            # C-implemented objects (numpy's ufuncs, ndarray) have no introspectable signature; their
            # docstring opens with it instead, as a paragraph of its own.
            first, _, rest = doc.partition("\n\n")
            if not signature and rest and re.match(re.escape(name) + r"\s*\(.*\)[^\n]*$", first.replace("\n", " ")):
                signature, doc = re.sub(r"\s+", " ", first).strip(), rest.strip()
            description, examples = split_examples(doc)
            row = {"import_path": import_path, "name": name, "signature": signature, "description": description or doc}
            if examples:
                row["examples"] = examples
            rows[import_path] = row
    return [rows[k] for k in sorted(rows)], undocumented


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="+", help="modules whose public classes and functions are dumped")
    parser.add_argument("--out", required=True, help="output JSONL file, or - for standard output")
    parser.add_argument("--names", help="only these names (comma-separated), for a sample of a large module")
    args = parser.parse_args()
    only = set(args.names.split(",")) if args.names else None
    rows, undocumented = dump(args.modules, only)
    if not rows:
        sys.exit("dump_api_docs: no documented class or function in " + ", ".join(args.modules))
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    print("dump_api_docs: %d API docs from %s; %d without a docstring left out%s" % (
        len(rows), ", ".join(args.modules), len(undocumented),
        (" (" + ", ".join(undocumented[:10]) + (", ..." if len(undocumented) > 10 else "") + ")") if undocumented else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
