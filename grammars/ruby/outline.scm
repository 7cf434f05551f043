; Outline of a Ruby file: patterns tried at every node. Capture vocabulary:
; grammars/README.md. File-level patterns (requires, constants) live in toplevel.scm.

; Modules and classes are containers: their bodies are never elided. `class A::B` is B,
; owned by A (@scope). An empty `class E < StandardError; end` has no body.
(module name: (constant) @name body: (body_statement)? @body) @definition.module
(module name: (scope_resolution scope: (_) @scope name: (constant) @name)
  body: (body_statement)? @body) @definition.module
(module name: (scope_resolution !scope name: (constant) @name)
  body: (body_statement)? @body) @definition.module
(class name: (constant) @name body: (body_statement)? @body) @definition.class
(class name: (scope_resolution scope: (_) @scope name: (constant) @name)
  body: (body_statement)? @body) @definition.class
(class name: (scope_resolution !scope name: (constant) @name)
  body: (body_statement)? @body) @definition.class

; `def foo` is a method inside a class or module, a function at file level. `def self.foo`,
; `def Klass.foo` and the defs in `class << self` are methods of the enclosing class.
; An endless `def foo = expr` has no body to elide.
(method name: (_) @name body: (body_statement)? @body) @definition.function
(singleton_method name: (_) @name body: (body_statement)? @body) @definition.function

; Constants set in a class or module body. `Point = Struct.new(...) do def ... end end` is
; not one: a value declaration must not enclose methods (see toplevel.scm).
(class body: (body_statement (assignment left: (constant) @name right: (_) @_v)
  @definition.constant (#not-match? @_v "^(Struct|Class|Module|Data)\\.(new|define)\\b")))
(module body: (body_statement (assignment left: (constant) @name right: (_) @_v)
  @definition.constant (#not-match? @_v "^(Struct|Class|Module|Data)\\.(new|define)\\b")))
(class body: (body_statement (assignment left: (constant) @name right: (call !block))
  @definition.constant))
(module body: (body_statement (assignment left: (constant) @name right: (call !block))
  @definition.constant))

; The instance variables `initialize` sets: kept when a method of the class is the target.
(method
  name: (identifier) @_init (#eq? @_init "initialize")
  body: (body_statement
    (assignment left: (instance_variable) @name) @definition.field @member))
