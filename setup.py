"""The optional compiled accelerator ``scrapy_cetd.page._speedups`` (everything else is in
``pyproject.toml``).

The extension is compiled with Cython against the headers of the lxml in the build environment
(``lxml.get_include()``). It is optional: when Cython, lxml or a C compiler is missing, or the
compilation fails, the build says so and goes on, and the package runs in pure Python.
"""

from __future__ import annotations

import sys
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """``build_ext`` that turns a failed compilation into a warning."""

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "unix":
            for extension in self.extensions:
                # No fused multiply-add: the densities must round exactly as Python's do.
                extension.extra_compile_args.append("-ffp-contract=off")
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # any failure leaves the pure-Python package
            self._skip(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            self._skip(error)

    @staticmethod
    def _skip(error: Exception) -> None:
        print(
            f"warning: scrapy_cetd.page._speedups not built ({error}); using pure Python",
            file=sys.stderr,
        )


def extensions() -> list[Any]:
    """The Cython extension, or none when Cython or lxml is not importable."""
    try:
        import lxml  # noqa: PLC0415 - build requirements, optional for this script
        from Cython.Build import cythonize  # noqa: PLC0415
    except ImportError as error:
        print(f"warning: scrapy_cetd.page._speedups not built ({error})", file=sys.stderr)
        return []
    extension = Extension(
        "scrapy_cetd.page._speedups",
        ["scrapy_cetd/page/_speedups.pyx"],
        include_dirs=lxml.get_include(),
    )
    try:
        return list(cythonize([extension], quiet=True))
    except Exception as error:  # a Cython error also leaves the pure-Python package
        print(f"warning: scrapy_cetd.page._speedups not built ({error})", file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
