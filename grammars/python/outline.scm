; Outline of a Python module. Capture vocabulary: grammars/README.md.

; ---- declarations ------------------------------------------------------------
(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

; Docstrings: the first statement of a module, class or function body.
(module . (string) @doc)
(class_definition body: (block . (string) @doc))
(function_definition body: (block . (string) @doc))

; Module-level names, also under module-level if/try (TYPE_CHECKING, optional imports).
(module (assignment left: (identifier) @name) @definition.variable)
(module (type_alias_statement left: (type (identifier) @name)) @definition.type)
(module [(if_statement (block (assignment left: (identifier) @name) @definition.variable))
         (try_statement (block (assignment left: (identifier) @name) @definition.variable))
         (with_statement (block (assignment left: (identifier) @name) @definition.variable))])
(module [(if_statement [(elif_clause (block (assignment left: (identifier) @name) @definition.variable))
                        (else_clause (block (assignment left: (identifier) @name) @definition.variable))])
         (try_statement [(except_clause (block (assignment left: (identifier) @name) @definition.variable))
                         (else_clause (block (assignment left: (identifier) @name) @definition.variable))
                         (finally_clause (block (assignment left: (identifier) @name) @definition.variable))])])

; Class-level attributes (including __slots__) and the instance attributes set in __init__.
(class_definition
  body: (block (assignment left: (identifier) @name) @definition.attribute))
(function_definition
  name: (identifier) @_init (#eq? @_init "__init__")
  body: (block
    (assignment
      left: (attribute
        object: (identifier) @_self (#eq? @_self "self")
        attribute: (identifier) @name)) @definition.field @member))

; Kept whole: their body is their signature.
(class_definition
  superclasses: (argument_list (_) @_base
    (#match? @_base "^([A-Za-z_][A-Za-z0-9_]*\\.)*(Enum|IntEnum|StrEnum|Flag|IntFlag|TypedDict|NamedTuple|Protocol)(\\[.*\\])?$"))) @keep.whole

; ---- header -----------------------------------------------------------------
(import_statement) @header.import
(import_from_statement) @header.import
(future_import_statement) @header.import
(module (assignment) @header.constant)
(module (augmented_assignment) @header.constant)
(module (type_alias_statement) @header.constant)
(module [(if_statement (block (assignment) @header.constant))
         (try_statement (block (assignment) @header.constant))
         (with_statement (block (assignment) @header.constant))])
(module [(if_statement [(elif_clause (block (assignment) @header.constant))
                        (else_clause (block (assignment) @header.constant))])
         (try_statement [(except_clause (block (assignment) @header.constant))
                         (else_clause (block (assignment) @header.constant))
                         (finally_clause (block (assignment) @header.constant))])])

; ---- module-level blocks a skeleton may elide (unless they hold header items or defs)
(module (if_statement consequence: (block) @elide))
(module (if_statement alternative: (elif_clause consequence: (block) @elide)))
(module (if_statement alternative: (else_clause body: (block) @elide)))
(module (for_statement body: (block) @elide))
(module (while_statement body: (block) @elide))
(module (with_statement body: (block) @elide))
(module (try_statement body: (block) @elide))
(module (try_statement (except_clause (block) @elide)))
(module (try_statement (finally_clause (block) @elide)))
