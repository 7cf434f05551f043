; Outline of a Rust file: patterns tried at every node. Capture vocabulary:
; grammars/README.md. Module-level patterns (use, const, static) live in toplevel.scm.
; Attributes (`#[derive]`, `#[cfg(test)]`, `#[test]`) and doc comments are sibling nodes
; before an item: language.toml lists them under `leading`, so they belong to it.

; Functions; a `fn` directly inside an impl, trait or mod is reported as a method. Trait
; method signatures and `extern` declarations have no body.
(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

; Types kept whole: their fields and variants are their meaning. Struct fields are outlined
; (enum variants are not: the vocabulary has no variant kind).
(struct_item name: (type_identifier) @name body: (_) @body) @definition.struct @keep.whole
(struct_item name: (type_identifier) @name !body) @definition.struct @keep.whole
(union_item name: (type_identifier) @name body: (_) @body) @definition.struct @keep.whole
(enum_item name: (type_identifier) @name body: (_) @body) @definition.enum @keep.whole
(struct_item body: (field_declaration_list
  (field_declaration name: (field_identifier) @name) @definition.field))
(union_item body: (field_declaration_list
  (field_declaration name: (field_identifier) @name) @definition.field))
(type_item name: (type_identifier) @name) @definition.type @keep.whole
(associated_type name: (type_identifier) @name) @definition.type @keep.whole

; Traits: a container whose method signatures are shown and default methods elided.
(trait_item name: (type_identifier) @name body: (declaration_list) @body) @definition.trait

; Constants of impls, traits and inline modules (module-level ones: toplevel.scm).
(declaration_list (const_item name: (identifier) @name) @definition.constant)
(declaration_list (static_item name: (identifier) @name) @definition.variable)

; impl blocks scope their methods under the implemented type's name (`Cache.evict`), for
; `impl Cache`, `impl<K> Cache<K>`, `impl Display for Cache`, `impl x::Cache` alike. The
; impl header (generics, trait, where clause) is its signature.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (primitive_type) @name
  ]
  body: (declaration_list) @body) @definition.impl
; Any other implemented type (`&T`, `[T]`, `(A, B)`, `dyn Trait`, `fn()`): its whole text.
(impl_item
  type: [
    (reference_type) (pointer_type) (array_type) (tuple_type) (dynamic_type)
    (function_type) (abstract_type) (bounded_type) (never_type) (unit_type)
  ] @name
  body: (declaration_list) @body) @definition.impl

; Inline modules are containers; `mod name;` is a declaration without a body.
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.namespace
(mod_item name: (identifier) @name !body) @definition.namespace

; macro_rules!: a declaration; a single-rule macro's expansion is its body.
(macro_definition
  name: (identifier) @name
  .
  (macro_rule right: (token_tree) @body)
  .) @definition.function
(macro_definition name: (identifier) @name (macro_rule) (macro_rule)) @definition.function
(macro_definition name: (identifier) @name [(line_comment) (block_comment)]) @definition.function
