; Outline of a Python module: patterns tried at every node. Capture vocabulary:
; grammars/README.md. Module-level patterns live in toplevel.scm.

; A docstring is the first statement of a class or function body.
(class_definition
  name: (identifier) @name
  body: (block . (string)? @doc) @body) @definition.class
(function_definition
  name: (identifier) @name
  body: (block . (string)? @doc) @body) @definition.function

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

; Imports anywhere; those inside function or class bodies are dropped by the extractor.
(import_statement) @header.import
(import_from_statement) @header.import
(future_import_statement) @header.import
