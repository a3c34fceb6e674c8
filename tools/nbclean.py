#!/usr/bin/env python3
"""Store notebooks clean, optionally executing them first: git then shows only what an author changed, a learner
opens a lesson without someone else's results in it, and nbval finds stored outputs exactly where it compares them.

    python tools/nbclean.py notebooks/*.ipynb             # clean in place
    python tools/nbclean.py --execute notebooks/*.ipynb   # run top to bottom, then clean
    python tools/nbclean.py --check notebooks/*.ipynb     # exit 1 and list problems (the tests use problems())

Clean means:
- outputs only in cells tagged `nbval-check-output` (nbval's cell tag), and there only text (stream or
  text/plain, never an error or an image); execution count 1 on those cells (nbval needs it), none elsewhere;
- cell metadata only `tags`, `jupyter` and `cellView`; a solution cell (tag `solution`) is hidden both in Jupyter
  (`jupyter.source_hidden`) and in Colab, whose own "hide code" setting is `cellView: "form"`;
- notebook metadata only the kernelspec and language_info that Jupyter itself writes for the "python3" kernel,
  so that JupyterLab does not mark a freshly opened lesson as modified.
An old `# NBVAL_CHECK_OUTPUT` comment line in a cell's source is turned into the tag (the line is removed).
"""
import json
import sys
from pathlib import Path

CHECK_MARK = "NBVAL_CHECK_OUTPUT"          # old comment marker; clean() converts it to CHECK_TAG
CHECK_TAG = "nbval-check-output"           # nbval reads this cell tag (nbval.plugin.metadata_tags)
# What JupyterLab and nbclient write for ipykernel's "python3" kernel: equal values leave the notebook unmodified.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                 "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                 "pygments_lexer": "ipython3",
                 "version": "{}.{}.{}".format(*sys.version_info[:3])}
CELL_METADATA_KEYS = {"tags", "jupyter", "cellView"}
SOLUTION_TAG = "solution"


def _hide_solution(cell) -> None:
    """A solution cell starts collapsed in JupyterLab and in Colab."""
    if SOLUTION_TAG in cell["metadata"].get("tags", []):
        cell["metadata"].setdefault("jupyter", {})["source_hidden"] = True
        cell["metadata"]["cellView"] = "form"


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def is_checked(cell):
    """True when nbval compares this cell's output (the tag, or the old comment marker)."""
    return CHECK_TAG in cell.get("metadata", {}).get("tags", []) or _has_marker(source(cell))


def _has_marker(text):
    return any(line.strip().lstrip("#").strip() == CHECK_MARK
               for line in text.splitlines() if line.strip().startswith("#"))


def convert_marker(cell):
    """`# NBVAL_CHECK_OUTPUT` line → cell tag `nbval-check-output`; True when the cell changed."""
    text = source(cell)
    if cell.get("cell_type") != "code" or not _has_marker(text):
        return False
    lines = [ln for ln in text.split("\n")
             if not (ln.strip().startswith("#") and ln.strip().lstrip("#").strip() == CHECK_MARK)]
    cell["source"] = "\n".join(lines).strip("\n").splitlines(keepends=True)    # stored as nbformat stores it
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if CHECK_TAG not in tags:
        tags.append(CHECK_TAG)
    return True


def text_only(output):
    if output.get("output_type") == "stream":
        return {"name": output["name"], "output_type": "stream", "text": output["text"]}
    if output.get("output_type") == "execute_result" and set(output.get("data", {})) == {"text/plain"}:
        return {"data": output["data"], "execution_count": None, "metadata": {}, "output_type": "execute_result"}
    return None


def _language_info(meta):
    """Keep the language_info a Python kernel wrote (its version included); otherwise this Python's."""
    info = meta.get("language_info", {})
    if info.get("name") == "python" and set(LANGUAGE_INFO) <= set(info):
        return {k: info[k] for k in LANGUAGE_INFO}
    return json.loads(json.dumps(LANGUAGE_INFO))


def clean(nb):
    nb["metadata"] = {"kernelspec": dict(KERNELSPEC), "language_info": _language_info(nb.get("metadata", {}))}
    for cell in nb["cells"]:
        cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in CELL_METADATA_KEYS}
        _hide_solution(cell)
        if cell["cell_type"] != "code":
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
            continue
        convert_marker(cell)
        keep = is_checked(cell)
        cell["outputs"] = [o for o in map(text_only, cell.get("outputs", [])) if o] if keep else []
        # nbval skips a reference cell whose execution_count is None ("Unrun reference cell"), so a checked
        # cell carries a fixed count of 1; every other cell carries none.
        cell["execution_count"] = 1 if cell["outputs"] else None
    return nb


def _notebook_metadata_problems(meta):
    if set(meta) != {"kernelspec", "language_info"} or meta["kernelspec"] != KERNELSPEC:
        return [f"notebook metadata {sorted(meta)} is not the python3 kernelspec + language_info"]
    if _language_info(meta) != meta["language_info"]:
        return ["notebook language_info is not the one a Python kernel writes"]
    return []


def _cell_metadata_problems(i, cell):
    found = []
    cmeta = cell.get("metadata", {})
    extra = set(cmeta) - CELL_METADATA_KEYS
    if extra:
        found.append(f"cell {i}: metadata {sorted(extra)}")
    if SOLUTION_TAG in cmeta.get("tags", []) and not (
            cmeta.get("jupyter", {}).get("source_hidden") is True and cmeta.get("cellView") == "form"):
        found.append(f"cell {i}: a solution not hidden in Jupyter and Colab (source_hidden, cellView form)")
    return found


def _code_cell_problems(i, cell):
    found = []
    if _has_marker(source(cell)):
        found.append(f"cell {i}: '# {CHECK_MARK}' comment instead of the cell tag {CHECK_TAG}")
    outs = cell.get("outputs", [])
    if cell.get("execution_count") != (1 if outs else None):
        found.append(f"cell {i}: execution_count {cell['execution_count']}")
    if outs and not is_checked(cell):
        found.append(f"cell {i}: stored output without the tag {CHECK_TAG}")
    found += [f"cell {i}: stored {o.get('output_type')} output that is not plain text"
              for o in outs if text_only(o) != o]
    return found


def problems(nb):
    """What makes a stored notebook unclean; empty when clean."""
    found = _notebook_metadata_problems(nb.get("metadata", {}))
    for i, cell in enumerate(nb["cells"]):
        found += _cell_metadata_problems(i, cell)
        if cell["cell_type"] == "code":
            found += _code_cell_problems(i, cell)
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
            for cell in nb["cells"]:
                convert_marker(cell)
            nb = nbformat.reads(json.dumps(nb), as_version=4)
            execute(nb, p)
            nb = json.loads(nbformat.writes(nb))
        p.write_text(json.dumps(clean(nb), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{p}: clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
