; C++ on top of C's patterns (grammars/c/, included first): namespaces, classes, methods
; declared or defined in a class, and methods defined outside it (`int Cache::get()`,
; whose class is its @scope).

(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.namespace
(class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.class

(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)
  body: (compound_statement) @body) @definition.function
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))
  body: (compound_statement) @body) @definition.method
(function_definition declarator: (reference_declarator (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))
  body: (compound_statement) @body) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))
  body: (compound_statement) @body) @definition.method
