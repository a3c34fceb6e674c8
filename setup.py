"""Build hook only (all other settings are in pyproject.toml): copies the course corpus from data/ into the wheel.

The files named in [tool.mishran] corpus-files land as mishran/corpus/<name>. An editable install needs no copy:
mishran.data.corpus_path() reads data/ of the checkout first.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    import tomllib
except ModuleNotFoundError:
    # Python 3.10: tomli is tomllib before it joined the standard library in 3.11; the build installs it there
    # (pyproject.toml's [build-system] requires).
    import tomli as tomllib

HERE = Path(__file__).resolve().parent


def corpus_files() -> list[str]:
    """The names in pyproject.toml's [tool.mishran] corpus-files."""
    pyproject = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))
    return list(pyproject["tool"]["mishran"]["corpus-files"])


class BuildPyWithCorpus(build_py):
    """build_py, then data/<name> → <build>/mishran/corpus/<name> for every listed corpus file."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "mishran" / "corpus"
        target.mkdir(parents=True, exist_ok=True)
        for name in corpus_files():
            source = HERE / "data" / name
            if not source.is_file():
                raise FileNotFoundError(f"data/{name} is listed in [tool.mishran] corpus-files but does not exist")
            shutil.copyfile(source, target / name)


if __name__ == "__main__":                     # setuptools runs this file as __main__; tests import it
    setup(cmdclass={"build_py": BuildPyWithCorpus})
