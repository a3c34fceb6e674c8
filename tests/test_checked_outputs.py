"""The browser test's check of a saved lesson's checked outputs (nbval's comparison, on the copy JupyterLab ran):
an unchanged copy passes, a changed or missing output of a checked cell fails, other cells are not compared."""
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))
from browser_support import CHECK_TAG, checked_output_mismatches  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "02_loss_scaling.ipynb"


def _copy(tmp_path, edit=None):
    nb = nbformat.read(LESSON, as_version=4)
    if edit:
        edit(nb)
    out = tmp_path / LESSON.name
    nbformat.write(nb, out)
    return out


def _checked(nb):
    return [c for c in nb.cells if c.cell_type == "code" and CHECK_TAG in c.metadata.get("tags", [])]


def _first_stream(cell):
    return next(o for o in cell.outputs if o.output_type == "stream")


def test_an_unchanged_copy_passes_and_split_streams_compare_as_one(tmp_path):
    assert len(_checked(nbformat.read(LESSON, as_version=4))) >= 5      # the lesson really has checked cells
    assert checked_output_mismatches(_copy(tmp_path), LESSON) == []

    def split(nb):                        # JupyterLab may save one print per output; nbval joins them first
        cell = _checked(nb)[0]
        out = _first_stream(cell)
        head, _, tail = out.text.partition("\n")
        assert tail, "the first checked cell prints more than one line"
        out.text = head + "\n"
        cell.outputs.insert(cell.outputs.index(out) + 1, nbformat.v4.new_output("stream", name=out.name, text=tail))
    assert checked_output_mismatches(_copy(tmp_path, split), LESSON) == []


def test_a_changed_or_missing_checked_output_fails(tmp_path):
    def change(nb):
        out = _first_stream(_checked(nb)[1])
        out.text = out.text.replace("0", "9", 1)
    found = checked_output_mismatches(_copy(tmp_path, change), LESSON)
    assert len(found) == 1 and "mismatch" in found[0] and CHECK_TAG in found[0]

    def empty(nb):
        _checked(nb)[2].outputs = []
    found = checked_output_mismatches(_copy(tmp_path, empty), LESSON)
    assert len(found) == 1 and "Missing output fields" in found[0]


def test_unchecked_cells_and_changed_sources(tmp_path):
    def unchecked(nb):
        cell = next(c for c in nb.cells if c.cell_type == "code" and CHECK_TAG not in c.metadata.get("tags", []))
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="anything\n")]
    assert checked_output_mismatches(_copy(tmp_path, unchecked), LESSON) == []

    def edited(nb):
        _checked(nb)[0].source += "\nprint('extra')"
    assert "not the repository's" in checked_output_mismatches(_copy(tmp_path, edited), LESSON)[0]
