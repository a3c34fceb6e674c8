"""tools/nbclean.py: what it keeps and drops, checked against nbformat, a real kernel and nbval itself."""
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbclean  # noqa: E402


def _raw(nb):
    """The notebook as it lies on disk (plain JSON), the form nbclean works on."""
    return json.loads(nbformat.writes(nb))


def _sample():
    checked = new_code_cell("# NBVAL_CHECK_OUTPUT\nprint(2 + 2)", execution_count=7,
                            outputs=[new_output("stream", name="stdout", text="4\n"),
                                     new_output("display_data", data={"image/png": "AAAA", "text/plain": "<Fig>"})],
                            metadata={"tags": ["keep"], "collapsed": False, "scrolled": True})
    plain = new_code_cell("x = 1\nx", execution_count=8,
                          outputs=[new_output("execute_result", data={"text/plain": "1"}, execution_count=8)])
    failed = new_code_cell("1/0", execution_count=9,
                           outputs=[new_output("error", ename="ZeroDivisionError", evalue="x", traceback=[])])
    text = new_markdown_cell("## শিরোনাম", metadata={"tags": ["t"], "editable": False})
    nb = new_notebook(cells=[text, checked, plain, failed],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                "widgets": {"state": {}}, "colab": {"provenance": []}})
    return _raw(nb)


def test_clean_keeps_text_outputs_only_of_tagged_cells():
    nb = nbclean.clean(_sample())
    text, checked, plain, failed = nb["cells"]
    assert "".join(checked["source"]) == "print(2 + 2)"                  # the marker line left the source
    assert checked["metadata"] == {"tags": ["keep", "nbval-check-output"]}
    assert checked["outputs"] == [{"name": "stdout", "output_type": "stream", "text": ["4\n"]}]   # image dropped
    assert checked["execution_count"] == 1
    assert plain["outputs"] == [] and plain["execution_count"] is None
    assert failed["outputs"] == [] and failed["execution_count"] is None
    assert text["metadata"] == {"tags": ["t"]} and "outputs" not in text
    assert nbclean.problems(nb) == []
    nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))     # still a valid notebook


def test_clean_is_idempotent_and_keeps_a_kernel_written_language_info():
    nb = _sample()
    nb["metadata"]["language_info"] = dict(nbclean.LANGUAGE_INFO, version="3.12.1")
    once = nbclean.clean(nb)
    assert once["metadata"]["language_info"]["version"] == "3.12.1"      # not re-stamped by whoever cleans
    assert set(once["metadata"]) == {"kernelspec", "language_info"}
    assert nbclean.clean(json.loads(json.dumps(once))) == once


@pytest.mark.parametrize("spoil, expected", [
    (lambda nb: nb["metadata"].pop("language_info"), "metadata"),
    (lambda nb: nb["metadata"]["kernelspec"].update(display_name="Python 3"), "metadata"),
    (lambda nb: nb["metadata"]["language_info"].pop("pygments_lexer"), "language_info"),
    (lambda nb: nb["cells"][2]["outputs"].append({"name": "stdout", "output_type": "stream", "text": "1"}),
     "without the tag"),
    (lambda nb: nb["cells"][1]["metadata"].update(scrolled=True), "metadata ['scrolled']"),
    (lambda nb: nb["cells"][1].update(execution_count=3), "execution_count 3"),
    (lambda nb: nb["cells"][2]["source"].insert(0, "# NBVAL_CHECK_OUTPUT\n"), "comment instead of the cell tag"),
])
def test_problems_names_each_kind_of_mess(spoil, expected):
    nb = nbclean.clean(_sample())
    spoil(nb)
    found = nbclean.problems(nb)
    assert found and any(expected in msg for msg in found), found


def test_executed_notebook_keeps_what_jupyter_writes(tmp_path):
    """nbclient (as JupyterLab does) writes kernelspec/language_info from the running kernel: clean keeps exactly it."""
    from ipykernel.ipkernel import IPythonKernel
    from jupyter_client.kernelspec import KernelSpecManager

    path = tmp_path / "t.ipynb"
    path.write_text(nbformat.writes(new_notebook(cells=[new_code_cell("print('হ্যাঁ')")])), encoding="utf-8")
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb = nbformat.reads(json.dumps(nb), as_version=4)
    nbclean.execute(nb, path)
    executed = _raw(nb)
    cleaned = nbclean.clean(json.loads(json.dumps(executed)))
    assert cleaned["metadata"]["language_info"] == executed["metadata"]["language_info"]
    assert cleaned["metadata"]["language_info"] == {k: v for k, v in IPythonKernel.language_info.items()}
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert cleaned["metadata"]["kernelspec"] == {"name": "python3", "display_name": spec.display_name,
                                                 "language": spec.language}


def test_nbval_checks_the_tagged_cell(tmp_path):
    """nbval itself reads the tag: a tagged cell whose stored output is wrong fails, an untagged one is not compared."""
    good = nbclean.clean(_raw(new_notebook(cells=[new_code_cell(
        "# NBVAL_CHECK_OUTPUT\nprint(6 * 7)", outputs=[new_output("stream", name="stdout", text="42\n")])])))
    bad = json.loads(json.dumps(good))
    bad["cells"][0]["outputs"][0]["text"] = "41\n"
    untagged = json.loads(json.dumps(bad))
    untagged["cells"][0]["metadata"]["tags"] = []
    untagged["cells"][0]["outputs"], untagged["cells"][0]["execution_count"] = [], None
    for name, nb in (("good", good), ("bad", bad), ("untagged", untagged)):
        (tmp_path / f"{name}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    # one nbval run over the three (one pytest start-up, not three); each notebook's outcome read from -rA
    run = [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--nbval-lax", "--rootdir",
           str(tmp_path), *(f"{name}.ipynb" for name in ("good", "bad", "untagged"))]
    out = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path).stdout
    results = {name: sorted(set(re.findall(rf"^(PASSED|FAILED) {name}\.ipynb::", out, re.M)))
               for name in ("good", "bad", "untagged")}
    assert results == {"good": ["PASSED"], "bad": ["FAILED"], "untagged": ["PASSED"]}, out[-3000:]


def test_check_mode_exits_1_on_an_unclean_notebook(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(_sample()), encoding="utf-8")
    tool = [sys.executable, str(ROOT / "tools/nbclean.py")]
    assert subprocess.run(tool + ["--check", str(path)], capture_output=True).returncode == 1
    assert subprocess.run(tool + [str(path)], capture_output=True).returncode == 0
    assert subprocess.run(tool + ["--check", str(path)], capture_output=True).returncode == 0


def test_a_solution_cell_is_hidden_in_jupyter_and_in_colab():
    nb = _sample()
    nb["cells"][2]["metadata"] = {"tags": ["solution"]}
    cleaned = nbclean.clean(nb)
    assert cleaned["cells"][2]["metadata"] == {"tags": ["solution"], "jupyter": {"source_hidden": True},
                                               "cellView": "form"}
    assert "cellView" not in cleaned["cells"][1]["metadata"]                # only solutions are folded
    assert nbclean.problems(cleaned) == []
    del cleaned["cells"][2]["metadata"]["cellView"]
    assert any("not hidden in Jupyter and Colab" in m for m in nbclean.problems(cleaned))
