; What a JavaScript file refers to beyond grammars/_ecmascript/references.scm: CommonJS
; `const x = require("./x")` as an import of the module, and class bases.

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))))

(class_declaration name: (identifier) @class.name
  (class_heritage (_) @class.base))
