; Outline patterns JavaScript, TypeScript and TSX share: included before each language's own
; outline.scm (`include = ["_ecmascript"]` in its language.toml). Only patterns both grammars
; accept as written belong here; a rule that differs by grammar (class fields, types) stays
; in the language's folder. Capture vocabulary: grammars/README.md. Module-level patterns
; (imports, exports, const/let/var, CommonJS) live in toplevel.scm.
;
; When two patterns name the same node the first match reported wins, and tree-sitter
; reports the shorter pattern first, so patterns on one node are written to exclude each
; other (`!value`, `(_ !body)`, `#not-match?`) rather than relying on their order, which the
; include changes. A declaration with a body is matched by a pattern rooted at its own node
; (or a wrapper of it): after an edit inside it, the outline is refreshed by running this
; query on that declaration's subtree alone, where a pattern anchored on its parent would
; not match.

; ---------------------------------------------------------------------------------------
; Classes. The signature (decorators, type parameters, extends/implements) is everything
; before the body, so a method carries its class's generic parameters as lineage.
(class_declaration
  name: (_) @name
  body: (class_body) @body) @definition.class
; `export default class { ... }`: named after the keyword.
(export_statement
  "default" @name
  value: (class body: (class_body) @body)) @definition.class
; `const Foo = class { ... }`
(variable_declarator
  name: (identifier) @name
  value: (class body: (class_body) @body)) @definition.class

; Methods of classes and of object literals (a `function` inside a container is reported as
; `method`). Fields, whose node differs by grammar, are in each language's outline.scm.
(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.function
; The `this.x = ...` statements of a constructor: the instance state a target's class keeps
; in its skeleton. (Not declarations: a pattern for them would be anchored on the
; constructor, and after an edit inside such a statement the outline is refreshed from the
; statement's own subtree, where that pattern cannot match.)
(method_definition
  name: (property_identifier) @_ctor (#eq? @_ctor "constructor")
  body: (statement_block
    (expression_statement
      (assignment_expression
        left: (member_expression object: (this)))) @member))

; ---------------------------------------------------------------------------------------
; Functions.
(function_declaration
  name: (_) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (_) @name
  body: (statement_block) @body) @definition.function
; `export default function () { ... }`: named after the keyword.
(export_statement
  "default" @name
  value: [
    (function_expression body: (statement_block) @body)
    (generator_function body: (statement_block) @body)
    (arrow_function body: (statement_block) @body)
  ]) @definition.function

; Arrow functions and function expressions assigned to a name are functions; a body that is
; an expression (`const double = (x) => x * 2`) has nothing to elide.
(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function body: (statement_block) @body)
    (function_expression body: (statement_block) @body)
    (generator_function body: (statement_block) @body)
  ]) @definition.function
(variable_declarator
  name: (identifier) @name
  value: (arrow_function body: (_) @_expr (#not-match? @_expr "^\\{"))) @definition.function

; A const wrapping its function in a call (`forwardRef((props, ref) => {...})`,
; `memo(function Row() {...})`, `useCallback(() => {...}, [])`): the function's body. Not
; the callbacks of array and promise methods or `useMemo` (`const xs = list.map(...)`): values.
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    function: (_) @_callee
    arguments: (arguments
      [
        (arrow_function body: (statement_block) @body)
        (function_expression body: (statement_block) @body)
      ]))
  (#not-match? @_callee
    "(^|\\.)(map|flatMap|filter|forEach|reduce(Right)?|some|every|find(Last)?(Index)?|sort|then|catch|finally|useMemo|call|apply)$")) @definition.function

; ---------------------------------------------------------------------------------------
; Object literals that define an API (`export const api = { get() {...}, put: (k) => {...} }`,
; `export default { ... }`, `module.exports = { ... }`): an `object` container whose
; function-valued members are its methods. Objects without functions are plain constants.
(variable_declarator
  name: (identifier) @name
  value: (object
    [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body) @definition.object
(export_statement
  "default" @name
  value: (object
    [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body) @definition.object
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: (object
      [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body)) @definition.object

; Their members, and the function-valued properties of any object literal (a container's
; are its methods; others are functions nested in whatever declares them). Methods written
; `get() {...}` are matched with the class methods above.
(pair
  key: (_) @name
  value: [
    (arrow_function body: (statement_block) @body)
    (function_expression body: (statement_block) @body)
  ]) @definition.function

; ---------------------------------------------------------------------------------------
; CommonJS and prototype assignments: `Router.prototype.use = function (...) {...}` (owned
; by `Router`), `exports.parse = function ...`, `res.send = function send(...) {...}` (owned
; by `exports`, `res`).
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @scope
        property: (property_identifier) @_proto (#eq? @_proto "prototype"))
      property: (_) @name)
    right: [
      (function_expression body: (statement_block) @body)
      (arrow_function body: (statement_block) @body)
    ])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @scope
      property: (_) @name)
    right: [
      (function_expression body: (statement_block) @body)
      (arrow_function body: (statement_block) @body)
    ])
  (#not-match? @scope "^(this|module)$|\\.prototype$")) @definition.function
; `module.exports = function name() {...}` / `= class {...}`
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports")) @name
    right: [
      (function_expression body: (statement_block) @body)
      (arrow_function body: (statement_block) @body)
    ])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression) @name
    right: (class body: (class_body) @body))) @definition.class
