; Outline of a Go file: patterns tried at every node. Capture vocabulary: grammars/README.md.
; Package-level patterns (header, var/const) live in toplevel.scm. Declarations with a body
; (functions, methods, structs, interfaces) must stay here: an edit inside one re-runs only
; this query on that declaration.

; Functions; a body-less `func f()` is implemented in assembly.
(function_declaration
  name: (identifier) @name
  body: (block)? @body) @definition.function

; Methods are found by receiver type: `func (c *Cache[K, V]) Evict()` is `Cache.Evict`, and
; the receiver's type definition travels with it.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
        (parenthesized_type (type_identifier) @scope)
        (pointer_type (parenthesized_type (type_identifier) @scope))
        (parenthesized_type (pointer_type (type_identifier) @scope))
      ]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; Types are kept whole: a struct's fields and an interface's methods are their meaning.
(type_spec
  name: (type_identifier) @name
  type: (struct_type (field_declaration_list) @body)) @definition.struct @keep.whole
(type_spec
  name: (type_identifier) @name
  type: (interface_type) @body) @definition.interface @keep.whole
(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type) (array_type)
    (implicit_length_array_type) (slice_type) (map_type) (channel_type) (function_type)
    (negated_type) (parenthesized_type)
  ]) @definition.type @keep.whole
(type_alias
  name: (type_identifier) @name) @definition.type @keep.whole

; Type declarations are header. This pattern lives here, not in toplevel.scm, because an
; edit inside a struct re-runs only this query on its declaration; so a type declared inside
; a function body is reported as a header item too (only imports and the package clause are
; read back from the header today, and an elided function body hides it anyway).
(type_declaration) @header.constant

; Members: a struct's fields (embedded ones by their type's name), an interface's methods.
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration . name: (field_identifier) @name) @definition.field)))
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration
        name: (field_identifier) "," name: (field_identifier) @name @definition.field))))
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: [
          (type_identifier) @name
          (qualified_type name: (type_identifier) @name)
          (generic_type type: (type_identifier) @name)
          (generic_type type: (qualified_type name: (type_identifier) @name))
        ]) @definition.field)))
(type_spec
  type: (interface_type
    (method_elem name: (field_identifier) @name) @definition.function))
