; Patterns that may only start at the top of a file (the program node and its children):
; the registry runs this query with a maximum start depth of 1.

; The header: the package declaration (with its annotations, in package-info.java) and
; every import, static or not. Java has no file-level constants: fields live in classes,
; and classes are containers, so their fields are always shown in skeletons.
(package_declaration) @header.package
(import_declaration) @header.import
