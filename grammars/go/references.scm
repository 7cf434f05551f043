; What a Go file refers to: imports, calls, and names whose type is known in their scope.
; Capture vocabulary: grammars/README.md. A package is its folder (module_system = "go").

(import_spec name: (package_identifier) @import.alias
  path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))
(import_spec !name
  path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))

(call_expression function: (identifier) @call.name)
(call_expression
  function: (selector_expression operand: (_) @call.object field: (field_identifier) @call.name))

; x := T{...}, x := &T{...}, x := NewT(...), var x T, parameters and receivers
(short_var_declaration left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (composite_literal type: (_) @bind.type)))
(short_var_declaration left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (unary_expression operand: (composite_literal type: (_) @bind.type))))
(short_var_declaration left: (expression_list . (identifier) @bind.name)
  right: (expression_list . (call_expression function: (_) @bind.type)))
(var_spec name: (identifier) @bind.name type: (_) @bind.type)
(var_spec name: (identifier) @bind.name value: (expression_list . (composite_literal type: (_) @bind.type)))
(var_spec name: (identifier) @bind.name
  value: (expression_list . (unary_expression operand: (composite_literal type: (_) @bind.type))))
(var_spec name: (identifier) @bind.name value: (expression_list . (call_expression function: (_) @bind.type)))
(parameter_declaration name: (identifier) @bind.name type: (_) @bind.type)

(function_declaration name: (identifier) @returns.name result: (_) @returns.type)
(method_declaration name: (field_identifier) @returns.name result: (_) @returns.type)
