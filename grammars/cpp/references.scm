; C++ on top of C's references (grammars/c/): `A::f()` and `obj.f()` / `ptr->f()` calls,
; `new T`, and class bases.

(call_expression function: (qualified_identifier scope: (_) @call.object name: (identifier) @call.name))
(new_expression type: (type_identifier) @call.name)
(class_specifier name: (type_identifier) @class.name
  (base_class_clause (type_identifier) @class.base))
(field_declaration type: (_) @bind.type declarator: (field_identifier) @bind.name) @bind.member
