; What a Ruby file refers to: calls and names whose class is known. Constants are global in
; Ruby, so classes resolve across the workspace by name (module_system = "ruby").

(call receiver: (_) @call.object method: (identifier) @call.name)
(call !receiver method: (identifier) @call.name)
; A bare name as a statement (`validate` on a line of its own) calls a method: a local's
; value there would be thrown away, except as a method's last expression.
(body_statement (identifier) @call.name)

(assignment left: (identifier) @bind.name
  right: (call receiver: [(constant) (scope_resolution)] @bind.type
               method: (identifier) @_new (#eq? @_new "new")))
(assignment left: (instance_variable) @bind.name
  right: (call receiver: [(constant) (scope_resolution)] @bind.type
               method: (identifier) @_new (#eq? @_new "new"))) @bind.member

(class name: (constant) @class.name superclass: (superclass (_) @class.base))
; `include M` in a class or module body: M's methods are the includer's, so it is a base.
(class name: (constant) @class.name
  body: (body_statement (call !receiver method: (identifier) @_include
                              arguments: (argument_list (_) @class.base))
                        (#eq? @_include "include")))
(module name: (constant) @class.name
  body: (body_statement (call !receiver method: (identifier) @_include
                              arguments: (argument_list (_) @class.base))
                        (#eq? @_include "include")))
