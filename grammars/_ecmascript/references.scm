; What JavaScript, TypeScript and TSX files refer to, written once: ES imports, calls, and
; names whose class is known from `new`. Included before each language's own references.scm
; (`include = ["_ecmascript"]`). Capture vocabulary: grammars/README.md.

(import_statement
  (import_clause (named_imports
    (import_specifier name: (identifier) @import.name alias: (identifier) @import.alias)))
  source: (string (string_fragment) @import.from))
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias)))
  source: (string (string_fragment) @import.from))
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module))

; The default import binds the module's default export (`import View from './view'`).
(import_statement (import_clause . (identifier) @import.default)
  source: (string (string_fragment) @import.from))
; What a module's default export names: `export default View`, `export default class
; View {}`; CommonJS `module.exports = View` (what `require()` of the module returns).
(export_statement value: (identifier) @export.default)
(export_statement "default" declaration: [(class_declaration name: (_) @export.default)
                                          (function_declaration name: (_) @export.default)])
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) @export.default
          (function_expression name: (identifier) @export.default)
          (class name: (_) @export.default)]
  (#eq? @_module "module") (#eq? @_exports "exports"))

(call_expression function: (identifier) @call.name)
(call_expression
  function: (member_expression object: (_) @call.object property: (property_identifier) @call.name))
(new_expression constructor: (identifier) @call.name)

(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: (_) @bind.type))
(variable_declarator name: (identifier) @bind.name value: (_) @_value)
(for_in_statement left: (identifier) @bind.name)
(assignment_expression
  left: (member_expression object: (this) @bind.self property: (property_identifier) @bind.name)
  right: (new_expression constructor: (_) @bind.type))

; Re-exports (a barrel's `export * from './x'`, `export {a as b} from './x'`) are read as
; imports, so a name imported from the barrel follows them to its declaration. (They bind no
; local name in the barrel itself; a call of that name there is not valid code anyway.)
(export_statement "*" @import.star source: (string (string_fragment) @import.from))
(export_statement
  (export_clause (export_specifier name: (identifier) @import.name alias: (identifier) @import.alias))
  source: (string (string_fragment) @import.from))
(export_statement
  (export_clause (export_specifier name: (identifier) @import.name !alias))
  source: (string (string_fragment) @import.from))
