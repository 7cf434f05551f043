; Outline of a C# file: patterns tried at every node. Capture vocabulary: grammars/README.md.
; The `using` directives live in toplevel.scm. A pattern that finds a declaration with a
; body is rooted at that declaration.

; A block namespace is a container: its types are its members (documentSymbol nests them).
(namespace_declaration name: (_) @name body: (declaration_list) @body) @definition.namespace

; Types: containers, their members outlined one by one (nested types too).
(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(record_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
; A record with no body (`record Money(decimal Amount);`) is its signature.
(record_declaration name: (identifier) @name !body) @definition.class @keep.whole
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum @keep.whole
(enum_member_declaration name: (identifier) @name) @definition.constant
(delegate_declaration name: (identifier) @name) @definition.type

; Methods, constructors, operators; an interface's or abstract method has no body; an
; expression body (`=> x`) is kept, a block is elided.
(method_declaration name: (identifier) @name body: (block)? @body) @definition.function
(method_declaration name: (identifier) @name body: (arrow_expression_clause)) @definition.function
(constructor_declaration name: (identifier) @name body: (block)? @body) @definition.function
(destructor_declaration name: (identifier) @name body: (block)? @body) @definition.function
(local_function_statement name: (identifier) @name body: (block) @body) @definition.function

; Properties and events (accessor bodies are short: kept); fields, one entry per
; declaration, named by its first declarator; `const` ones are constants.
(property_declaration name: (identifier) @name) @definition.attribute
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
((field_declaration (modifier) @_m
   (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
  (#eq? @_m "const"))
((field_declaration
   (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
  (#not-match? @definition.field "(^|\\s)const\\s"))

; What a constructor stores on the instance (`this.x = x;`, `X = x;`).
(constructor_declaration body: (block
  (expression_statement (assignment_expression left: (member_access_expression))) @member))
(constructor_declaration body: (block
  (expression_statement (assignment_expression left: (identifier))) @member))
