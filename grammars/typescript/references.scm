; What a TypeScript file refers to beyond grammars/_ecmascript/references.scm (TSX includes
; this file too): names typed by annotations and by the calls assigned to them, instance
; members typed by their declaration, class bases and declared return types.

(variable_declarator name: (identifier) @bind.name type: (type_annotation (_) @bind.type))
(variable_declarator name: (identifier) @bind.name value: (call_expression function: (_) @bind.type))
(required_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type))
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation (_) @bind.type))
; Instance members typed by a declaration or an assignment: this.store
(required_parameter (accessibility_modifier) pattern: (identifier) @bind.name
  type: (type_annotation (_) @bind.type)) @bind.member
(public_field_definition name: (property_identifier) @bind.name
  type: (type_annotation (_) @bind.type)) @bind.member

(class_declaration name: (type_identifier) @class.name
  (class_heritage (extends_clause value: (_) @class.base)))
(class_declaration name: (type_identifier) @class.name
  (class_heritage (implements_clause (_) @class.base)))

(function_declaration name: (identifier) @returns.name
  return_type: (type_annotation (_) @returns.type))
(method_definition name: (property_identifier) @returns.name
  return_type: (type_annotation (_) @returns.type))
