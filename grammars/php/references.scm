; What a PHP file refers to: `use` imports, calls, and names whose class is known in their
; scope. Capture vocabulary: grammars/README.md (module_system = "namespaces": classes are
; found by name across the workspace).

; `namespace A\B;`: the classes after it are A\B's
(namespace_definition !body name: (namespace_name) @namespace.name)

; `use A\B\C [as D];`
(namespace_use_clause (qualified_name prefix: (namespace_name) @import.from (name) @import.name) !alias)
(namespace_use_clause (qualified_name prefix: (namespace_name) @import.from (name) @import.name) alias: (name) @import.alias)

(function_call_expression function: (name) @call.name)
(function_call_expression function: (qualified_name (name) @call.name))
(member_call_expression object: (_) @call.object name: (name) @call.name)
(nullsafe_member_call_expression object: (_) @call.object name: (name) @call.name)
(scoped_call_expression scope: (_) @call.object name: (name) @call.name)
(object_creation_expression (name) @call.name)
(object_creation_expression (qualified_name (name) @call.name))

(assignment_expression left: (variable_name) @bind.name
  right: (object_creation_expression [(name) (qualified_name)] @bind.type))
(simple_parameter type: (named_type) @bind.type name: (variable_name) @bind.name)
(simple_parameter type: (optional_type (named_type) @bind.type) name: (variable_name) @bind.name)
; Typed properties and promoted constructor parameters are instance members ($this->x).
(property_declaration type: (named_type) @bind.type
  (property_element name: (variable_name (name) @bind.name))) @bind.member
(property_declaration type: (optional_type (named_type) @bind.type)
  (property_element name: (variable_name (name) @bind.name))) @bind.member
(property_promotion_parameter type: (named_type) @bind.type name: (variable_name (name) @bind.name)) @bind.member
; An untyped property typed where the class assigns it: `$this->config = new Config(...)`
((assignment_expression left: (member_access_expression object: (variable_name (name) @_this)
   name: (name) @bind.name)
  right: (object_creation_expression [(name) (qualified_name)] @bind.type)) @bind.member
 (#eq? @_this "this"))

(class_declaration name: (name) @class.name (base_clause (_) @class.base))
(class_declaration name: (name) @class.name (class_interface_clause (_) @class.base))
(class_declaration name: (name) @class.name body: (declaration_list (use_declaration (_) @class.base)))

(method_declaration name: (name) @returns.name return_type: (named_type) @returns.type)
(function_definition name: (name) @returns.name return_type: (named_type) @returns.type)
