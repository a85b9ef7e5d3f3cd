"""The package's type declarations: they compile against a page's use of the package (TypeScript's
tsc, --strict), and they declare exactly what each module exports (read from the modules in
Chromium), so that neither drifts from the code."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from conftest import require

PACKAGE = Path(__file__).resolve().parents[1]
MODULES = ["ladder-image", "ladder", "thumbhash"]


def declared(module: str) -> set[str]:
    """The names a .d.ts exports: declarations, and names re-exported as values."""
    text = (PACKAGE / f"{module}.d.ts").read_text()
    names = set(re.findall(r"^export (?:declare )?(?:function|class|const|let) (\w+)", text, re.M))
    for group in re.findall(r"^export \{([^}]*)\} from", text, re.M):
        names |= {name.strip() for name in group.split(",") if name.strip()}
    return names


def test_the_declarations_compile_against_a_pages_use_of_the_package(tmp_path):
    tsc = shutil.which("tsc")
    require(tsc, "TypeScript's tsc is not installed (apt-get install node-typescript)")
    arguments = [
        "--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "node",
        "--lib", "es2022,dom",
    ]
    result = subprocess.run([tsc, *arguments, str(PACKAGE / "test" / "types-usage.ts")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # And they can fail: a fit the element does not know is refused.
    wrong = tmp_path / "wrong.ts"
    wrong.write_text(
        f'import {{ showLadder }} from "{PACKAGE}/ladder-image.js";\n'
        'showLadder(document.body, { base: "/x/", fit: "sideways" });\n'
    )
    result = subprocess.run([tsc, *arguments, str(wrong)], capture_output=True, text=True)
    assert result.returncode != 0 and '"sideways"' in result.stdout


def test_each_module_exports_what_its_declarations_say(pages, server):
    page = pages.open("")
    for module in MODULES:
        exported = set(page.evaluate(f"async () => Object.keys(await import('/client/{module}.js'))"))
        assert exported == declared(module), f"{module}.js exports {sorted(exported)}, its .d.ts {sorted(declared(module))}"
