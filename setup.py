"""The packages, found by setuptools rather than listed by hand (a hand-kept list once left out
three packages and shipped a wheel that did not start): every package under cpsolve/, and every
package under models/ installed as cpsolve.models (package-dir). The rest of the metadata is in
pyproject.toml."""

from setuptools import find_packages, setup

FAMILIES = "models"  # installed as cpsolve.models (never as a top-level `models`)

setup(
    packages=[
        *find_packages(include=["cpsolve", "cpsolve.*"]),
        *(f"cpsolve.{name}" for name in find_packages(include=[FAMILIES, f"{FAMILIES}.*"])),
    ],
    package_dir={"cpsolve": "cpsolve", "cpsolve.models": FAMILIES},
)
