"""Package discovery for the engine's distribution (metadata lives in pyproject.toml).

The import package ``hookproof`` is assembled from five top-level folders (DESIGN.md section 1):
``hookproof/`` plus the four layers ``schemas/``, ``events/``, ``projections/`` and ``engine/``,
mapped with ``package_dir``. setuptools' ``find`` does not follow such a mapping, so every folder
under each mapped root is discovered here, as a (namespace) package, data folders such as
``sql/`` and ``static/`` included: a package or data folder added later ships without touching
any list (tests/dist/test_wheel_contents.py compares the wheel with the tree).
"""

from setuptools import find_namespace_packages, setup

#: import name -> folder of the checkout
LAYOUT = {
    "hookproof": "hookproof",
    "hookproof.schemas": "schemas",
    "hookproof.events": "events",
    "hookproof.projections": "projections",
    "hookproof.engine": "engine",
}


def discover() -> list[str]:
    """Every package (and data folder) under each mapped root."""
    found: list[str] = []
    for name, folder in LAYOUT.items():
        found.append(name)
        found += [
            f"{name}.{sub}"
            for sub in find_namespace_packages(folder, exclude=["*__pycache__*", "*.egg-info"])
        ]
    return found


setup(packages=discover(), package_dir=dict(LAYOUT))
