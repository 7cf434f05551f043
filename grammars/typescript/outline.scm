; Outline of a TypeScript module: patterns tried at every node. Capture vocabulary:
; grammars/README.md. Module-level patterns (imports, exports, const/let, CommonJS) live in
; toplevel.scm. TSX uses this file too (queries_from).
;
; When two patterns name the same node the first match reported wins, and tree-sitter
; reports the shorter pattern first, so patterns on one node are written to exclude each
; other (`!value`, `(_ !body)`, `#not-match?`) rather than relying on their order.
; A declaration with a body is matched by a pattern rooted at its own node (or a wrapper of
; it): after an edit inside it, the outline is refreshed by running this query on that
; declaration's subtree alone, where a pattern anchored on its parent would not match.

; ---------------------------------------------------------------------------------------
; Classes. The signature (decorators, type parameters, extends/implements) is everything
; before the body, so a method carries its class's generic parameters as lineage.
(class_declaration
  name: (_) @name
  body: (class_body) @body) @definition.class
(abstract_class_declaration
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
; `method`); method decorators are siblings before the method (`leading` in language.toml).
; Overload signatures and abstract methods are declarations without a body.
(method_definition
  name: (_) @name
  body: (statement_block) @body) @definition.function
(class_body
  (method_signature name: (_) @name) @definition.function)
(class_body
  (abstract_method_signature name: (_) @name) @definition.function)

; Fields; a field initialised with a function is a method with a body to elide.
(public_field_definition
  name: (_) @name
  value: [
    (arrow_function body: (statement_block) @body)
    (function_expression body: (statement_block) @body)
    (generator_function body: (statement_block) @body)
  ]) @definition.function
(public_field_definition
  name: (_) @name
  value: (arrow_function body: (_) @_expr (#not-match? @_expr "^\\{"))) @definition.function
(public_field_definition name: (_) @name !value) @definition.field
(public_field_definition name: (_) @name value: (_ !body)) @definition.field

; Constructor parameter properties (`constructor(private readonly db: Db)`) are fields.
(method_definition
  name: (property_identifier) @_ctor (#eq? @_ctor "constructor")
  parameters: (formal_parameters
    [
      (required_parameter (accessibility_modifier) pattern: (identifier) @name)
      (required_parameter "readonly" pattern: (identifier) @name)
      (optional_parameter (accessibility_modifier) pattern: (identifier) @name)
      (optional_parameter "readonly" pattern: (identifier) @name)
    ] @definition.field))
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
; Interfaces, type aliases and enums are kept whole: their bodies are their signatures.
(interface_declaration
  name: (_) @name
  body: (interface_body) @body) @definition.interface @keep.whole
(interface_body
  (method_signature name: (_) @name) @definition.function)
(interface_body
  (property_signature name: (_) @name) @definition.field)
(type_alias_declaration
  name: (_) @name) @definition.type @keep.whole
(enum_declaration
  name: (_) @name
  body: (enum_body) @body) @definition.enum @keep.whole
(enum_body
  name: (_) @name @definition.constant)
(enum_body
  (enum_assignment name: (_) @name) @definition.constant)

; ---------------------------------------------------------------------------------------
; Modules: `declare module "x" { ... }` augmentations and `declare global { ... }` are
; `module` containers named after the module; `namespace X { ... }` is a `namespace`. Their
; functions, classes, interfaces... are outlined by the patterns for those; their consts are
; not (a pattern for them would be anchored on the namespace, and the outline after an edit
; inside a const's value is refreshed from that const's own subtree).
(module
  name: (string (string_fragment) @name)
  body: (statement_block) @body) @definition.module
(module
  name: (string (string_fragment) @name) !body) @definition.module
(module
  name: [(identifier) (nested_identifier)] @name
  body: (statement_block) @body) @definition.namespace
(internal_module
  name: (_) @name
  body: (statement_block) @body) @definition.namespace
(ambient_declaration
  "global" @name
  (statement_block) @body) @definition.module

; ---------------------------------------------------------------------------------------
; Functions. Overload signatures (`function f(a: string): void;`) and `declare function`
; are declarations without a body.
(function_declaration
  name: (_) @name
  body: (statement_block) @body) @definition.function
(generator_function_declaration
  name: (_) @name
  body: (statement_block) @body) @definition.function
(function_signature
  name: (_) @name) @definition.function
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
  value: [
    (object
      [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body
    (as_expression
      (object
        [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body)
    (satisfies_expression
      (object
        [(method_definition) (pair value: [(arrow_function) (function_expression)])]) @body)
  ]) @definition.object
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
