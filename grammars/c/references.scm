; What a C file refers to: includes, calls, and names whose type is known in their scope.
; Capture vocabulary: grammars/README.md (module_system = "c": every name is global, an
; include brings a header's module, its header and source, into scope).

; `#include "billing/cache.h"`: every name of that module (a star import).
(preproc_include path: (string_literal (string_content) @import.from)) @import.star

(call_expression function: (identifier) @call.name)
(call_expression function: (field_expression argument: (_) @call.object field: (field_identifier) @call.name))

(declaration type: (_) @bind.type declarator: (identifier) @bind.name)
(declaration type: (_) @bind.type declarator: (init_declarator declarator: (identifier) @bind.name))
(declaration type: (_) @bind.type declarator: (pointer_declarator declarator: (identifier) @bind.name))
(declaration type: (_) @bind.type declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @bind.name)))
(parameter_declaration type: (_) @bind.type declarator: (identifier) @bind.name)
(parameter_declaration type: (_) @bind.type declarator: (pointer_declarator declarator: (identifier) @bind.name))

; `static int helper(void)`: a function only its own file can call, whatever another
; file declares by that name.
((function_definition (storage_class_specifier) @_s
   declarator: (function_declarator declarator: (identifier) @internal.name))
 (#eq? @_s "static"))
((function_definition (storage_class_specifier) @_s
   declarator: (pointer_declarator declarator: (function_declarator
     declarator: (identifier) @internal.name)))
 (#eq? @_s "static"))

; A macro's replacement text is opaque to the grammar: the calls in it are read from its
; text (`#define LOG(x) log_line(x)` uses log_line).
(preproc_function_def value: (preproc_arg) @macro.body)
(preproc_def value: (preproc_arg) @macro.body)
