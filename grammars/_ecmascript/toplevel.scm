; Module-level patterns JavaScript, TypeScript and TSX share, included before each
; language's own toplevel.scm (`include = ["_ecmascript"]`). Patterns that may only start at
; the top of a file (the program node and its children): the registry runs this query with a
; maximum start depth of 1. These patterns come after outline.scm's, so a const that
; outline.scm calls a function or an object stays one.

; Imports: ES imports (and TypeScript's `import fs = require("fs")`), CommonJS `require`
; bound to a name, and a bare `require("./polyfill")`.
(import_statement) @header.import
(lexical_declaration
  . (variable_declarator value: (_) @_v (#match? @_v "^require\\s*\\("))) @header.import
(variable_declaration
  . (variable_declarator value: (_) @_v (#match? @_v "^require\\s*\\("))) @header.import
(expression_statement
  (call_expression function: (identifier) @_r (#eq? @_r "require"))) @header.import

; Exports that declare nothing: re-exports are imports too (`export * from "./x"`); export
; lists, `export default expr` (and TypeScript's `export = X`, `export as namespace X`) are
; header lines, and so are CommonJS `module.exports = ...` / `exports.x = ...`. Not when
; they export a function, a class or an object of methods written in place: that is a
; declaration with a body (outline.scm), and an edit inside it refreshes the outline from its
; own subtree, where this query does not run (same test as for consts below).
(export_statement source: (_)) @header.import
(export_statement !declaration !source !value) @header.constant
((export_statement !declaration !source value: (_ !body) @_v) @header.constant
  (#not-match? @_v "=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{"))
((expression_statement
   (assignment_expression
     left: (member_expression object: (identifier) @_m (#match? @_m "^(module|exports)$"))
     right: (_ !body) @_v)) @header.constant
  (#not-match? @_v "=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{"))
((expression_statement
   (assignment_expression
     left: (member_expression
       object: (member_expression
         object: (identifier) @_m (#eq? @_m "module")
         property: (property_identifier) @_e (#eq? @_e "exports")))
     right: (_ !body) @_v)) @header.constant
  (#not-match? @_v "=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{"))

; Module-level `const` / `let` / `var`: header constants, and each name a declaration
; (TypeScript's `declare const` is in its own toplevel.scm). `const x = require("x")` is an
; import, not a declaration. A const bound to a function, a class or an object of methods is
; a declaration with a body (outline.scm), not a header constant: a value that holds `=>`,
; `function` or `name(...) {` is left out (a body-less const whose value merely contains one
; is still a declaration).
((lexical_declaration . (variable_declarator value: (_ !body) @_v)) @header.constant
  (#not-match? @_v "^require\\s*\\(|=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{"))
(lexical_declaration . (variable_declarator !value)) @header.constant
((variable_declaration . (variable_declarator value: (_ !body) @_v)) @header.constant
  (#not-match? @_v "^require\\s*\\(|=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{"))
(variable_declaration . (variable_declarator !value)) @header.constant
(export_statement
  declaration: [
    (lexical_declaration . (variable_declarator value: (_ !body) @_v))
    (variable_declaration . (variable_declarator value: (_ !body) @_v))
  ]
  (#not-match? @_v "=>|\\bfunction\\b|[\\w$\\]'\"]\\s*\\([^()]*\\)\\s*\\{")) @header.constant
(export_statement
  declaration: [
    (lexical_declaration . (variable_declarator !value))
    (variable_declaration . (variable_declarator !value))
  ]) @header.constant

(lexical_declaration
  kind: "const"
  (variable_declarator
    name: (identifier) @name
    value: (_)? @_v (#not-match? @_v "^require\\s*\\(")) @definition.constant)
(lexical_declaration
  kind: "let"
  (variable_declarator
    name: (identifier) @name
    value: (_)? @_v (#not-match? @_v "^require\\s*\\(")) @definition.variable)
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (_)? @_v (#not-match? @_v "^require\\s*\\(")) @definition.variable)
(export_statement
  declaration: (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name) @definition.constant))
(export_statement
  declaration: (lexical_declaration
    kind: "let"
    (variable_declarator name: (identifier) @name) @definition.variable))
(export_statement
  declaration: (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable))
; Module-level blocks a skeleton may elide (unless they hold header items or declarations):
; `if`/loops/`try`, IIFEs, and top-level calls with a callback (`describe("x", () => {...})`,
; `app.get("/", (req, res) => {...})`).
(if_statement consequence: (statement_block) @elide)
(if_statement alternative: (else_clause (statement_block) @elide))
(for_statement body: (statement_block) @elide)
(for_in_statement body: (statement_block) @elide)
(while_statement body: (statement_block) @elide)
(do_statement body: (statement_block) @elide)
(try_statement body: (statement_block) @elide)
(try_statement handler: (catch_clause body: (statement_block) @elide))
(try_statement finalizer: (finally_clause body: (statement_block) @elide))
(expression_statement
  (call_expression
    function: (parenthesized_expression
      [(function_expression body: (statement_block) @elide)
       (arrow_function body: (statement_block) @elide)])))
(expression_statement
  (parenthesized_expression
    (call_expression
      function: [(function_expression body: (statement_block) @elide)
                 (arrow_function body: (statement_block) @elide)])))
(expression_statement
  (call_expression
    arguments: (arguments
      [(function_expression body: (statement_block) @elide)
       (arrow_function body: (statement_block) @elide)])))
