; What a Rust file refers to: use declarations, calls, and names whose type is known in
; their scope. Capture vocabulary: grammars/README.md. Paths keep their `::` here; the
; resolver reads them as crate-relative module paths (module_system = "rust").

(use_declaration argument: (scoped_identifier path: (_) @import.from name: (identifier) @import.name))
(use_declaration argument: (use_as_clause
  path: (scoped_identifier path: (_) @import.from name: (identifier) @import.name)
  alias: (identifier) @import.alias))
(use_declaration argument: (scoped_use_list path: (_) @import.from
  list: (use_list (identifier) @import.name)))
(use_declaration argument: (scoped_use_list path: (_) @import.from
  list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias))))
; `use a::*`, and a crate or module under another name (`pub use grep_regex as regex`)
(use_declaration argument: (use_wildcard (_) @import.from) @import.star)
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias))
; Lists inside lists (`use self::{ty::{Ty, sub_type}, spanned::Sp}`): each enclosing
; list's path is an @import.prefix, outermost first.
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (scoped_identifier path: (_) @import.from name: (identifier) @import.name))))
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (use_as_clause path: (scoped_identifier path: (_) @import.from
    name: (identifier) @import.name) alias: (identifier) @import.alias))))
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (use_wildcard (_) @import.from) @import.star)))
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (scoped_use_list path: (_) @import.from list: (use_list (identifier) @import.name)))))
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (scoped_use_list path: (_) @import.prefix
    list: (use_list (scoped_identifier path: (_) @import.from name: (identifier) @import.name))))))

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression value: (_) @call.object field: (field_identifier) @call.name))
(call_expression function: (scoped_identifier path: (_) @call.object name: (identifier) @call.name))

(let_declaration pattern: (identifier) @bind.name type: (_) @bind.type)
(let_declaration pattern: (identifier) @bind.name value: (call_expression function: (_) @bind.type))
(let_declaration pattern: (identifier) @bind.name value: (struct_expression name: (_) @bind.type))
(parameter pattern: (identifier) @bind.name type: (_) @bind.type)

(function_item name: (identifier) @returns.name return_type: (_) @returns.type)

; use a::b::{self}, use a::{b::{self}}: the module itself, used as b
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (self) @import.self)))
(use_declaration argument: (scoped_use_list path: (_) @import.prefix
  list: (use_list (scoped_use_list path: (_) @import.module list: (use_list (self) @import.self)))))

; Calls inside a macro's token tree (assert!(f(x)), format!("{}", c.m()), vec![m::f()]):
; tree-sitter leaves them as tokens, an identifier followed by a parenthesised tree.
(token_tree (identifier) @call.name . (token_tree . "("))
(token_tree (identifier) @call.object . "." . (identifier) @call.name . (token_tree . "("))
(token_tree (identifier) @call.object . "::" . (identifier) @call.name . (token_tree . "("))
