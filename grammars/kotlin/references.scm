; What a Kotlin file refers to: imports, calls, and names whose type is known in their
; scope. Capture vocabulary: grammars/README.md. A package is its folder
; (module_system = "java").

; `import a.b.C [as D]`: the path is the module and the name at once (@import.path).
(import_header (identifier) @import.path .)
(import_header (identifier) @import.path (import_alias (type_identifier) @import.alias))
(import_header (identifier) @import.from (wildcard_import) @import.star)

(call_expression (simple_identifier) @call.name)
(call_expression (navigation_expression (_) @call.object
  (navigation_suffix (simple_identifier) @call.name)))
(constructor_invocation (user_type (type_identifier) @call.name))

(property_declaration (variable_declaration (simple_identifier) @bind.name (user_type) @bind.type))
(property_declaration (variable_declaration (simple_identifier) @bind.name .)
  (call_expression (simple_identifier) @bind.type))
(parameter (simple_identifier) @bind.name (user_type) @bind.type)
; A constructor's `val x: T` is an instance member: this.x, or x alone (implicit_self).
(class_parameter (binding_pattern_kind) (simple_identifier) @bind.name (user_type) @bind.type) @bind.member
(class_body (property_declaration
  (variable_declaration (simple_identifier) @bind.name (user_type) @bind.type))) @bind.member

(class_declaration (type_identifier) @class.name
  (delegation_specifier (constructor_invocation (user_type) @class.base)))
(class_declaration (type_identifier) @class.name (delegation_specifier (user_type) @class.base))

(function_declaration (simple_identifier) @returns.name (function_value_parameters)
  . (user_type) @returns.type)
