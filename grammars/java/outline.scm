; Outline of a Java compilation unit: patterns tried at every node. Capture vocabulary:
; grammars/README.md. The package and the imports live in toplevel.scm.
;
; A declaration's annotations are children of its `modifiers` node, so a class's span and
; its signature (which runs to the end of its `extends` / `implements` / `permits` clauses)
; hold `@Service @Transactional` and the type parameters: a method's lineage carries them.
;
; A pattern that finds a declaration with a body is rooted at that declaration: after an edit
; inside it, only its own subtree is queried again.

; Types: containers, their members outlined one by one. Nested, inner and local classes too.
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(annotation_type_declaration
  name: (identifier) @name body: (annotation_type_body) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.class
; module-info.java: its directives are its meaning; a container, never elided. (Not in
; toplevel.scm: a declaration with a body is looked for again inside itself after an edit.)
(module_declaration name: (_) @name body: (module_body) @body) @definition.module

; Kept whole: an enum that is only its constants (no `;` members, no constant with a body)
; and a record whose body holds no code (its components are in its signature anyway).
((enum_declaration body: (enum_body) @_b) @keep.whole
  (#not-match? @_b "^\\{[^;{]*\\{|^\\{[^{]*;"))
((record_declaration body: (class_body) @_b) @keep.whole
  (#match? @_b "^\\{[^{]*\\}$"))

; Enum constants; one with a class body overrides methods, so it is a container.
(enum_constant !body name: (identifier) @name) @definition.constant
(enum_constant name: (identifier) @name body: (class_body) @body) @definition.object

; Methods and constructors (qualname `Class.Class`). Abstract, native and interface methods
; have no body: their signature is all there is. A method of an anonymous class is outlined
; where the class is written: inside a method body (elided with it) or, for a field
; initializer, among the enclosing class's members.
(method_declaration name: (identifier) @name body: (block)? @body) @definition.function
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.function
; A record's compact constructor holds its invariants: kept whole.
(compact_constructor_declaration
  name: (identifier) @name body: (block) @body) @definition.function @keep.whole
(annotation_type_element_declaration name: (identifier) @name) @definition.function

; Fields of named types, with their annotations (in `modifiers`); `static final` ones are
; constants. A declaration with several declarators is one entry, named by its first.
; `(_ body: (class_body ...))` is a class, record or enum constant: an anonymous class's body
; is not in a `body:` field, so the fields of anonymous classes are not lifted to the class
; that encloses them.
(_ body: (class_body
  ((field_declaration (modifiers)? @_m
     declarator: (variable_declarator name: (identifier) @name)) @definition.field
   (#not-match? @_m "\\bstatic\\b[\\s\\S]*\\bfinal\\b|\\bfinal\\b[\\s\\S]*\\bstatic\\b"))))
(_ body: (class_body
  ((field_declaration (modifiers) @_m
     declarator: (variable_declarator name: (identifier) @name)) @definition.constant
   (#match? @_m "\\bstatic\\b[\\s\\S]*\\bfinal\\b|\\bfinal\\b[\\s\\S]*\\bstatic\\b"))))
(enum_body_declarations
  ((field_declaration (modifiers)? @_m
     declarator: (variable_declarator name: (identifier) @name)) @definition.field
   (#not-match? @_m "\\bstatic\\b[\\s\\S]*\\bfinal\\b|\\bfinal\\b[\\s\\S]*\\bstatic\\b")))
(enum_body_declarations
  ((field_declaration (modifiers) @_m
     declarator: (variable_declarator name: (identifier) @name)) @definition.constant
   (#match? @_m "\\bstatic\\b[\\s\\S]*\\bfinal\\b|\\bfinal\\b[\\s\\S]*\\bstatic\\b")))
; Interface and annotation fields are implicitly `static final`.
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

; What a constructor stores on the instance (`this.x = x;`, `x = x0;`): kept in the
; constructor of the target's class, the rest of its body elided.
(constructor_declaration body: (constructor_body
  (expression_statement
    (assignment_expression left: (field_access object: (this)))) @member))
(constructor_declaration body: (constructor_body
  (expression_statement (assignment_expression left: (identifier))) @member))

; A static initializer is a class body declaration (JLS 8.7) with a body: outlined as
; `Class.static`, its body elided like a method's. (An instance initializer has no name to
; give it and is shown as written; so are field initializers, anonymous classes included,
; whose methods are outlined and elided.)
(static_initializer "static" @name (block) @body) @definition.function
