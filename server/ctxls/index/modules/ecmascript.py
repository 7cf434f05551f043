"""ECMAScript modules (and CommonJS ``require``): a relative specifier names a file beside
the importing one, a bare specifier a package outside the workspace."""

from __future__ import annotations

import posixpath
import re

from ctxls.index.modules import ModuleSystem, register

EXTENSION = re.compile(r"\.(?:[cm]?[jt]sx?)$")


@register("ecmascript")
class EcmascriptModules(ModuleSystem):
    default_exports = True
    export_objects = ("exports", "module.exports")

    def module_name(self, path: str) -> str | None:
        """The path without its extension: ``billing/pricing.ts`` -> ``billing/pricing``."""
        return path.rsplit(".", 1)[0]

    def module_names(self, path: str) -> list[str]:
        """A folder's ``index`` file also answers to the folder."""
        mod = path.rsplit(".", 1)[0]
        return [mod, mod[: -len("/index")]] if mod.endswith("/index") else [mod]

    def absolute(self, module: str, level: int, path: str, root: str) -> str:
        if not module.startswith("."):
            return module  # a package: outside the workspace
        spec = EXTENSION.sub("", module)  # "./money.js" names money.ts or money.js
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))

    def plain_target(self, local: str, module: str, rest: str, absolute: str) -> str | None:
        return None if rest else absolute  # `import * as m`: m is the module itself
