; What a Java file refers to: imports, calls, and names whose type is known in their scope.
; Capture vocabulary: grammars/README.md. A package is its folder (module_system = "java").

(import_declaration (scoped_identifier scope: (_) @import.from name: (identifier) @import.name) .)
; `import a.b.*;`: every class of the package a.b (the names above are then not one import)
(import_declaration (scoped_identifier) @import.from (asterisk) @import.star)

(method_invocation object: (_) @call.object name: (identifier) @call.name)
(method_invocation !object name: (identifier) @call.name)
(object_creation_expression type: (type_identifier) @call.name)

(local_variable_declaration type: (_) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.name)
  (#not-eq? @bind.type "var"))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @bind.name
    value: (object_creation_expression type: (_) @bind.type)))
(formal_parameter type: (_) @bind.type name: (identifier) @bind.name)
(enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.name
  (#not-eq? @bind.type "var"))
; A type variable's bound: what a method declared to return `U` returns, where
; `U extends BaseTestConsumer<T, U>` (a fluent API's own type)
(type_parameter (type_identifier) @bind.name (type_bound . (_) @bind.type))
; Fields are instance members: this.repo, or repo alone (implicit_self)
(field_declaration type: (_) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.name)) @bind.member

(class_declaration name: (identifier) @class.name superclass: (superclass (_) @class.base))

(method_declaration type: (_) @returns.type name: (identifier) @returns.name)
