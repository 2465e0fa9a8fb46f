"""One build step for setuptools: the wheel carries the checkout's shipped data folders.

pyproject.toml holds everything else. The programs read some files at run time that live in top-level
folders of the checkout, outside the packages (the shipped nets in checkpoints/, the benchmark
positions in benchmarks/, the training recipes in recipes/); a wheel can only install packages, so ``build_py`` copies each folder's
files into the model package as model/shipped/<folder>/, where model/net/shipped_files.py finds them
once installed. The same files are listed as sources, so the sdist carries them too and a wheel built
from the sdist is the same. A folder with none of its files is an error, never a wheel without nets.

To ship another top-level folder, add it to ``SHIPPED`` and read it through
``model.net.shipped_files.shipped_folder(NAME)``, as model/train/recipe.py reads recipes/.
"""

from __future__ import annotations

import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import FileError

SHIPPED = {"checkpoints": "*.safetensors", "benchmarks": "*.npz", "recipes": "*.toml"}
"""Top-level folder of the checkout -> the pattern of its files the wheel carries."""
INSTALLED_AS = os.path.join("model", "shipped")
"""Where the wheel puts them: model/shipped/<folder>/<file> (model/net/shipped_files.py's INSTALLED)."""


def shipped_sources() -> list[str]:
    """The files of ``SHIPPED``, relative to the project folder (where setuptools runs), sorted."""
    files = []
    for folder, pattern in SHIPPED.items():
        found = sorted(glob.glob(os.path.join(folder, pattern)))
        if not found:
            raise FileError(f"no {folder}/{pattern} to ship: the wheel would have none")
        files += found
    return files


class BuildPyWithShippedFiles(build_py):
    """setuptools' build_py, which also copies ``SHIPPED`` into the build (and so into the wheel), lists
    those files as sources (so into the sdist), and starts from an empty build folder."""

    def run(self) -> None:
        if not self.editable_mode and os.path.isdir(self.build_lib):
            # setuptools puts in the wheel whatever the build folder holds: a module deleted or
            # renamed in the checkout since the last build would otherwise ship as well
            shutil.rmtree(self.build_lib)
        super().run()

    def shipped_mapping(self) -> dict[str, str]:
        """Each shipped file's place in the build -> its place in the checkout."""
        return {os.path.join(self.build_lib, INSTALLED_AS, source): source for source in shipped_sources()}

    def build_package_data(self) -> None:
        super().build_package_data()
        for target, source in self.shipped_mapping().items():
            self.mkpath(os.path.dirname(target))
            self.copy_file(source, target)

    def get_output_mapping(self) -> dict[str, str]:
        return dict(sorted({**super().get_output_mapping(), **self.shipped_mapping()}.items()))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        if self.editable_mode:
            return super().get_outputs(include_bytecode)  # the output mapping's keys, ours among them
        return super().get_outputs(include_bytecode) + list(self.shipped_mapping())

    def get_source_files(self) -> list[str]:
        return super().get_source_files() + shipped_sources()


setup(cmdclass={"build_py": BuildPyWithShippedFiles})
