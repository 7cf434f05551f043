; What a Python file refers to: imports, calls, and names whose type is known in their
; scope. Used by the reference index (ctxls.index.refs); capture vocabulary in
; grammars/README.md.

(import_statement name: (dotted_name) @import.module)
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from name: (dotted_name) @import.name)
(import_from_statement
  module_name: (_) @import.from
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from (wildcard_import) @import.star)

(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.object attribute: (identifier) @call.name))
(decorator (identifier) @call.name)
(decorator (attribute object: (_) @call.object attribute: (identifier) @call.name))

; A binding gives a name a type in its scope; one without @bind.type rebinds it to an
; unknown type (so an older binding no longer applies).
(assignment left: (identifier) @bind.name right: (call function: (_) @bind.type))
(assignment left: (identifier) @bind.name type: (type) @bind.type)
; Any assignment rebinds (cheaper than listing the non-call forms; a typed binding of the
; same row sorts after this one and wins).
(assignment left: (identifier) @bind.name right: (_) @_value)
(typed_parameter (identifier) @bind.name type: (type) @bind.type)
(typed_default_parameter name: (identifier) @bind.name type: (type) @bind.type)
(with_item value: (as_pattern (call function: (_) @bind.type)
                              alias: (as_pattern_target (identifier) @bind.name)))
(for_statement left: (identifier) @bind.name)
(except_clause value: (as_pattern alias: (as_pattern_target (identifier) @bind.name)))
; Instance attributes typed by what is assigned to them: self.router = Router(...)
(assignment
  left: (attribute object: (identifier) @bind.self attribute: (identifier) @bind.name)
  right: (call function: (_) @bind.type)
  (#any-of? @bind.self "self" "cls"))

(class_definition name: (identifier) @class.name superclasses: (argument_list (_) @class.base))

; What a function says it returns: x = parse(...); x.m() then knows x.
(function_definition name: (identifier) @returns.name return_type: (type) @returns.type)
