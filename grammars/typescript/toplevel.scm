; TypeScript's own module-level patterns (TSX includes this file too), after the shared ones
; in grammars/_ecmascript/toplevel.scm: `declare const` / `declare let` / `declare var` are
; header constants and declarations. Run with a maximum start depth of 1, like the shared
; file.
(ambient_declaration [(lexical_declaration) (variable_declaration)]) @header.constant

(ambient_declaration
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant))
(ambient_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
