#!/usr/bin/env python3
"""Store notebooks clean (COURSE_PLAN §9), optionally executing them first.

    python tools/nbclean.py notebooks/*.ipynb             # clean in place
    python tools/nbclean.py --execute notebooks/*.ipynb   # run top to bottom, then clean
    python tools/nbclean.py --check notebooks/*.ipynb     # exit 1 and list problems (the tests use problems())

Clean means: no execution counts (1 on checked cells, which nbval needs); outputs only in cells marked `# NBVAL_CHECK_OUTPUT`, and there only text
(stream or text/plain, never an error or an image); cell metadata only `tags` and `jupyter`; notebook
metadata only a plain Python 3 kernelspec and language name.
"""
import json
import sys
from pathlib import Path

CHECK_MARK = "NBVAL_CHECK_OUTPUT"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
NB_METADATA = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
CELL_METADATA_KEYS = {"tags", "jupyter"}


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def text_only(output):
    if output.get("output_type") == "stream":
        return {"name": output["name"], "output_type": "stream", "text": output["text"]}
    if output.get("output_type") == "execute_result" and set(output.get("data", {})) == {"text/plain"}:
        return {"data": output["data"], "execution_count": None, "metadata": {}, "output_type": "execute_result"}
    return None


def clean(nb):
    nb["metadata"] = json.loads(json.dumps(NB_METADATA))
    for cell in nb["cells"]:
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in CELL_METADATA_KEYS}
        if cell["cell_type"] != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        keep = CHECK_MARK in source(cell)
        cell["outputs"] = [o for o in map(text_only, cell.get("outputs", [])) if o] if keep else []
        # nbval skips a reference cell whose execution_count is None ("Unrun reference cell"), so a checked
        # cell carries a fixed count of 1; every other cell carries none.
        cell["execution_count"] = 1 if cell["outputs"] else None
    return nb


def problems(nb):
    """What makes a stored notebook unclean; empty when clean."""
    found = []
    if nb.get("metadata") != NB_METADATA:
        found.append(f"notebook metadata {sorted(nb.get('metadata', {}))} is not the plain kernelspec")
    for i, cell in enumerate(nb["cells"]):
        extra = set(cell.get("metadata", {})) - CELL_METADATA_KEYS
        if extra:
            found.append(f"cell {i}: metadata {sorted(extra)}")
        if cell["cell_type"] != "code":
            continue
        outs = cell.get("outputs", [])
        if cell.get("execution_count") != (1 if outs else None):
            found.append(f"cell {i}: execution_count {cell['execution_count']}")
        if outs and CHECK_MARK not in source(cell):
            found.append(f"cell {i}: stored output without {CHECK_MARK}")
        for o in outs:
            if text_only(o) != o:
                found.append(f"cell {i}: stored {o.get('output_type')} output that is not plain text")
    return found


def execute(nb, path):
    import nbclient
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()


def main(argv):
    paths = [Path(a) for a in argv if not a.startswith("--")]
    bad = 0
    for p in paths:
        nb = json.loads(p.read_text(encoding="utf-8"))
        if "--check" in argv:
            for msg in problems(nb):
                bad += 1
                print(f"{p}: {msg}")
            continue
        if "--execute" in argv:
            import nbformat
            nb = nbformat.reads(json.dumps(nb), as_version=4)
            execute(nb, p)
            nb = json.loads(nbformat.writes(nb))
        p.write_text(json.dumps(clean(nb), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{p}: clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
