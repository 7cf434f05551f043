; Generic definitions: each pattern is compiled on its own and kept only when the grammar
; has its node types and fields, so one file serves every language in languages.toml.
; Names and bodies come from the `name:` / `body:` fields most grammars share.

(function_definition name: (_) @name body: (_) @body) @definition.function
(function_declaration name: (_) @name body: (_) @body) @definition.function
(function_item name: (_) @name body: (_) @body) @definition.function
(function_definition
  declarator: (function_declarator declarator: (_) @name) body: (_) @body) @definition.function
(method_declaration name: (_) @name body: (_) @body) @definition.method
(method_definition name: (_) @name body: (_) @body) @definition.method
(constructor_declaration name: (_) @name body: (_) @body) @definition.method
(class_declaration name: (_) @name body: (_) @body) @definition.class
(class_definition name: (_) @name body: (_) @body) @definition.class
(class_specifier name: (_) @name body: (_) @body) @definition.class
(struct_specifier name: (_) @name body: (_) @body) @definition.struct
(struct_declaration name: (_) @name body: (_) @body) @definition.struct
(interface_declaration name: (_) @name body: (_) @body) @definition.interface
(protocol_declaration name: (_) @name body: (_) @body) @definition.interface
(enum_declaration name: (_) @name body: (_) @body) @definition.enum
(object_declaration name: (_) @name body: (_) @body) @definition.object
(namespace_definition name: (_) @name body: (_) @body) @definition.namespace
(namespace_declaration name: (_) @name body: (_) @body) @definition.namespace
(module_definition name: (_) @name body: (_) @body) @definition.module
(trait_declaration name: (_) @name body: (_) @body) @definition.trait
