; JavaScript's own outline patterns (ES modules, CommonJS, JSX), after the shared ones in
; grammars/_ecmascript/outline.scm: class fields, which this grammar calls `field_definition`
; (decorators are children of the method here). Capture vocabulary: grammars/README.md.

; Fields; a field initialised with a function is a method with a body to elide.
(field_definition
  property: (_) @name
  value: [
    (arrow_function body: (statement_block) @body)
    (function_expression body: (statement_block) @body)
    (generator_function body: (statement_block) @body)
  ]) @definition.function
(field_definition
  property: (_) @name
  value: (arrow_function body: (_) @_expr (#not-match? @_expr "^\\{"))) @definition.function
(field_definition property: (_) @name !value) @definition.field
(field_definition property: (_) @name value: (_ !body)) @definition.field
