; Outline of a Kotlin file: patterns tried at every node. Capture vocabulary:
; grammars/README.md. The package, the imports and top-level properties live in
; toplevel.scm. This grammar has no field names: children are matched by type.
;
; A pattern that finds a declaration with a body is rooted at that declaration.

; Types: containers, their members outlined one by one (nested classes too).
(class_declaration "class" (type_identifier) @name (class_body) @body) @definition.class
(class_declaration "interface" (type_identifier) @name (class_body) @body) @definition.interface
(class_declaration (type_identifier) @name (enum_class_body) @body) @definition.enum
(object_declaration (type_identifier) @name (class_body) @body) @definition.object
(companion_object "companion" @name (class_body) @body) @definition.object
; A class without a body (`data class Point(val x: Int, val y: Int)`): its constructor is
; its signature, all there is.
((class_declaration (type_identifier) @name) @definition.class @keep.whole
  (#not-match? @definition.class "\\}\\s*$"))

; Enum entries.
(enum_entry (simple_identifier) @name) @definition.constant

; Functions and methods (an interface's abstract ones have no body); an extension function
; (`fun String.ext()`) is named by its own name.
; An expression body (`= a + b`, often on the next lines) is kept: eliding it would leave
; a dangling `=`; only a block body is elided.
((function_declaration (simple_identifier) @name (function_body) @body) @definition.function
  (#match? @body "^\\{"))
((function_declaration (simple_identifier) @name (function_body)? @_expression) @definition.function
  (#not-match? @_expression "^\\{"))
(secondary_constructor "constructor" @name (statements)? @body) @definition.function
(anonymous_initializer "init" @name (statements)? @body) @definition.function

; Properties of a class or object; `const val` ones are constants.
(class_body ((property_declaration
  (variable_declaration (simple_identifier) @name)) @definition.field
  (#not-match? @definition.field "^(?:@\\S+\\s+|\\w+\\s+)*const\\s")))
(class_body ((property_declaration (modifiers) @_m
  (variable_declaration (simple_identifier) @name)) @definition.constant
  (#match? @_m "\\bconst\\b")))

(type_alias (type_identifier) @name) @definition.type
