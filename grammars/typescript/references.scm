; What a TypeScript file refers to: imports, calls, and names whose type is known in their
; scope (TSX reuses this file). Capture vocabulary: grammars/README.md.

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

(call_expression function: (identifier) @call.name)
(call_expression
  function: (member_expression object: (_) @call.object property: (property_identifier) @call.name))
(new_expression constructor: (identifier) @call.name)

(variable_declarator name: (identifier) @bind.name value: (new_expression constructor: (_) @bind.type))
(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type))
(variable_declarator name: (identifier) @bind.name value: (call_expression function: (_) @bind.type))
(variable_declarator name: (identifier) @bind.name value: (_) @_value)
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type))
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type))
(for_in_statement left: (identifier) @bind.name)
; Instance members typed by a declaration or an assignment: this.store
(required_parameter (accessibility_modifier) pattern: (identifier) @bind.name
  type: (type_annotation (_) @bind.type)) @bind.member
(public_field_definition name: (property_identifier) @bind.name
  type: (type_annotation (_) @bind.type)) @bind.member
(assignment_expression
  left: (member_expression object: (this) @bind.self property: (property_identifier) @bind.name)
  right: (new_expression constructor: (_) @bind.type))

(class_declaration name: (type_identifier) @class.name
  (class_heritage (extends_clause value: (_) @class.base)))

(function_declaration name: (identifier) @returns.name
  return_type: (type_annotation (_) @returns.type))
(method_definition name: (property_identifier) @returns.name
  return_type: (type_annotation (_) @returns.type))
