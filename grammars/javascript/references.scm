; What a JavaScript file refers to beyond grammars/_ecmascript/references.scm: CommonJS
; `const x = require("./x")` as an import of the module, and class bases.

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))))

(class_declaration name: (identifier) @class.name
  (class_heritage (_) @class.base))

; `const f = require("./m").f`: a name of the module.
(variable_declarator
  name: (identifier) @import.alias
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require (#eq? @_require "require")
      arguments: (arguments . (string (string_fragment) @import.from)))
    property: (property_identifier) @import.name))

; `const { a, b: c } = require("./m")`: the module's names, as `import { a, b as c }`.
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.from))))
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name
                                      value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.from))))
