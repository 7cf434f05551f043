; TypeScript's own outline patterns (TSX includes this file too), after the shared ones in
; grammars/_ecmascript/outline.scm: abstract classes, overload and abstract signatures,
; fields, parameter properties, interfaces, types, enums, modules and namespaces. Capture
; vocabulary: grammars/README.md.

(abstract_class_declaration
  name: (_) @name
  body: (class_body) @body) @definition.class

; Method decorators are siblings before the method (`leading` in language.toml). Overload
; signatures and abstract methods are declarations without a body.
(class_body
  (method_signature name: (_) @name) @definition.function)
(class_body
  (abstract_method_signature name: (_) @name) @definition.function)

; Fields; a field initialised with a function is a method with a body to elide.
(public_field_definition
  name: (_) @name
  value: [
    (arrow_function body: (statement_block) @body)
    (function_expression body: (statement_block) @body)
    (generator_function body: (statement_block) @body)
  ]) @definition.function
(public_field_definition
  name: (_) @name
  value: (arrow_function body: (_) @_expr (#not-match? @_expr "^\\{"))) @definition.function
(public_field_definition name: (_) @name !value) @definition.field
(public_field_definition name: (_) @name value: (_ !body)) @definition.field

; Constructor parameter properties (`constructor(private readonly db: Db)`) are fields.
(method_definition
  name: (property_identifier) @_ctor (#eq? @_ctor "constructor")
  parameters: (formal_parameters
    [
      (required_parameter (accessibility_modifier) pattern: (identifier) @name)
      (required_parameter "readonly" pattern: (identifier) @name)
      (optional_parameter (accessibility_modifier) pattern: (identifier) @name)
      (optional_parameter "readonly" pattern: (identifier) @name)
    ] @definition.field))

; ---------------------------------------------------------------------------------------
; Interfaces, type aliases and enums are kept whole: their bodies are their signatures.
(interface_declaration
  name: (_) @name
  body: (interface_body) @body) @definition.interface @keep.whole
(interface_body
  (method_signature name: (_) @name) @definition.function)
(interface_body
  (property_signature name: (_) @name) @definition.field)
(type_alias_declaration
  name: (_) @name) @definition.type @keep.whole
(enum_declaration
  name: (_) @name
  body: (enum_body) @body) @definition.enum @keep.whole
(enum_body
  name: (_) @name @definition.constant)
(enum_body
  (enum_assignment name: (_) @name) @definition.constant)

; ---------------------------------------------------------------------------------------
; Modules: `declare module "x" { ... }` augmentations and `declare global { ... }` are
; `module` containers named after the module; `namespace X { ... }` is a `namespace`. Their
; functions, classes, interfaces... are outlined by the patterns for those; their consts are
; not (a pattern for them would be anchored on the namespace, and the outline after an edit
; inside a const's value is refreshed from that const's own subtree).
(module
  name: (string (string_fragment) @name)
  body: (statement_block) @body) @definition.module
(module
  name: (string (string_fragment) @name) !body) @definition.module
(module
  name: [(identifier) (nested_identifier)] @name
  body: (statement_block) @body) @definition.namespace
(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace
(ambient_declaration
  "global" @name
  (statement_block) @body) @definition.module

; ---------------------------------------------------------------------------------------
; Overload signatures (`function f(a: string): void;`) and `declare function` are
; declarations without a body.
(function_signature
  name: (_) @name) @definition.function

; An object of methods behind a type assertion is an API object too (see _ecmascript).
(variable_declarator
  name: (identifier) @name
  value: (as_expression
    (object
      [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body)) @definition.object
(variable_declarator
  name: (identifier) @name
  value: (satisfies_expression
    (object
      [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body)) @definition.object
