; What a C# file refers to: `using` directives, calls, and names whose type is known in
; their scope. Capture vocabulary: grammars/README.md (module_system = "namespaces": types are
; found by name across the workspace).

; `namespace A.B;`: the types after it are A.B's
(file_scoped_namespace_declaration name: (_) @namespace.name)

; `using A.B;` brings a namespace's types into scope: a star import of A.B.
(using_directive (qualified_name) @import.from) @import.star
(using_directive (identifier) @import.from) @import.star

(invocation_expression function: (identifier) @call.name)
(invocation_expression function: (member_access_expression expression: (_) @call.object name: (identifier) @call.name))
(invocation_expression function: (generic_name (identifier) @call.name))
(object_creation_expression type: (identifier) @call.name)
(object_creation_expression type: (generic_name (identifier) @call.name))

(local_declaration_statement (variable_declaration type: (_) @bind.type
  (variable_declarator name: (identifier) @bind.name))
  (#not-eq? @bind.type "var"))
(local_declaration_statement (variable_declaration
  (variable_declarator name: (identifier) @bind.name (object_creation_expression type: (_) @bind.type))))
(local_declaration_statement (variable_declaration
  (variable_declarator name: (identifier) @bind.name (invocation_expression function: (_) @bind.type))))
(parameter type: (_) @bind.type name: (identifier) @bind.name)
; Fields and properties are instance members: this.x, or x alone (implicit_self).
(field_declaration (variable_declaration type: (_) @bind.type
  (variable_declarator name: (identifier) @bind.name))) @bind.member
(property_declaration type: (_) @bind.type name: (identifier) @bind.name) @bind.member

(class_declaration name: (identifier) @class.name (base_list (_) @class.base))
(struct_declaration name: (identifier) @class.name (base_list (_) @class.base))
(interface_declaration name: (identifier) @class.name (base_list (_) @class.base))

(method_declaration returns: (_) @returns.type name: (identifier) @returns.name)
