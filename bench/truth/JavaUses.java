// Every use of a project declaration in a Java tree, as javac itself binds it: the truth for
// bench/java_uses.py. Run as a single source file (Java 11+, nothing to build):
//
//     java bench/truth/JavaUses.java ROOT > uses.tsv
//
// Every .java file under ROOT is parsed and attributed together (dependencies outside the
// tree stay unresolved: what names them binds to nothing and is left out). For each name in
// code that javac binds to a declaration in the tree, one line:
//
//     use_path  use_line  use_col  decl_path  decl_line  decl_col
//
// paths relative to ROOT, lines 0-based, columns in UTF-16 units (as LSP counts them); a
// declaration is placed at its name (a constructor at its class's name). `new Foo()` is a use
// of the class and of the constructor it calls; `super(...)` and `this(...)` of the
// constructor they call, placed at the keyword; `import static a.B.name;` of every static
// member of B so named.

import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.IOException;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
import java.util.stream.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class JavaUses {
    static Path root;
    static Trees trees;
    static SourcePositions pos;
    static final Map<CompilationUnitTree, String> text = new IdentityHashMap<>();
    static final Map<CompilationUnitTree, int[]> lineStarts = new IdentityHashMap<>();
    static final StringBuilder out = new StringBuilder();

    public static void main(String[] args) throws IOException {
        root = Paths.get(args[0]).toAbsolutePath().normalize();
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                     .sorted().collect(Collectors.toList());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = javac.getStandardFileManager(d -> {}, null, null);
        JavacTask task = (JavacTask) javac.getTask(null, fm, d -> {},
            List.of("-proc:none", "-Xlint:none", "-implicit:none", "-nowarn"), null,
            fm.getJavaFileObjectsFromPaths(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();  // errors (unresolved dependencies) are expected and ignored
        trees = Trees.instance(task);
        pos = trees.getSourcePositions();
        for (CompilationUnitTree unit : units) {
            String src = unit.getSourceFile().getCharContent(true).toString();
            text.put(unit, src);
            List<Integer> starts = new ArrayList<>(List.of(0));
            for (int i = 0; i < src.length(); i++) if (src.charAt(i) == '\n') starts.add(i + 1);
            lineStarts.put(unit, starts.stream().mapToInt(Integer::intValue).toArray());
        }
        for (CompilationUnitTree unit : units) {
            new Scanner(unit).scan(unit, null);
        }
        System.out.print(out);
    }

    static String rel(CompilationUnitTree unit) {
        return root.relativize(Paths.get(unit.getSourceFile().toUri())).toString();
    }

    static String place(CompilationUnitTree unit, long offset) {
        int[] starts = lineStarts.get(unit);
        int i = Arrays.binarySearch(starts, (int) offset);
        int line = i >= 0 ? i : -i - 2;
        return line + "\t" + (offset - starts[line]);
    }

    /** Where a declaration's name is: the first whole word equal to it after what precedes
     *  it in the tree (modifiers, type parameters, the type). */
    static String declared(Element e) {
        TreePath path = trees.getPath(e);
        if (path == null) return null;
        CompilationUnitTree unit = path.getCompilationUnit();
        if (!text.containsKey(unit)) return null;
        Tree t = path.getLeaf();
        String name = e.getKind() == ElementKind.CONSTRUCTOR
            ? e.getEnclosingElement().getSimpleName().toString() : e.getSimpleName().toString();
        if (name.isEmpty()) return null;
        long from = pos.getStartPosition(unit, t);
        if (e.getKind() == ElementKind.CONSTRUCTOR && !(t instanceof MethodTree))
            return null;  // a default constructor, written nowhere
        if (t instanceof ClassTree c) {
            from = Math.max(from, pos.getEndPosition(unit, c.getModifiers()));
        } else if (t instanceof MethodTree m) {
            from = Math.max(from, pos.getEndPosition(unit, m.getModifiers()));
            for (Tree tp : m.getTypeParameters()) from = Math.max(from, pos.getEndPosition(unit, tp));
            if (m.getReturnType() != null) from = Math.max(from, pos.getEndPosition(unit, m.getReturnType()));
        } else if (t instanceof VariableTree v) {
            from = Math.max(from, pos.getEndPosition(unit, v.getModifiers()));
            if (v.getType() != null && pos.getStartPosition(unit, v.getType()) >= 0)
                from = Math.max(from, pos.getEndPosition(unit, v.getType()));
        } else {
            return null;
        }
        if (from < 0) return null;
        Matcher m = Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])")
            .matcher(text.get(unit));
        if (!m.find((int) from)) return null;
        return rel(unit) + "\t" + place(unit, m.start());
    }

    static class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree unit;
        Scanner(CompilationUnitTree unit) { this.unit = unit; }

        void use(Element e, long nameStart) {
            if (e == null || nameStart < 0) return;
            ElementKind k = e.getKind();
            if (k == ElementKind.PACKAGE || k == ElementKind.PARAMETER
                || k == ElementKind.LOCAL_VARIABLE || k == ElementKind.EXCEPTION_PARAMETER
                || k == ElementKind.RESOURCE_VARIABLE || k == ElementKind.TYPE_PARAMETER) return;
            String name = k == ElementKind.CONSTRUCTOR
                ? e.getEnclosingElement().getSimpleName().toString() : e.getSimpleName().toString();
            String src = text.get(unit);
            if (!src.startsWith(name, (int) nameStart)) return;  // a name javac made up
            String d = declared(e);
            if (d == null) return;
            out.append(rel(unit)).append('\t').append(place(unit, nameStart)).append('\t')
               .append(d).append('\n');
        }

        @Override public Void visitIdentifier(IdentifierTree t, Void v) {
            String n = t.getName().toString();
            if (!n.equals("this") && !n.equals("super"))
                use(trees.getElement(getCurrentPath()), pos.getStartPosition(unit, t));
            return super.visitIdentifier(t, v);
        }

        // `import static a.B.name;` binds every static member of B named so
        @Override public Void visitImport(ImportTree t, Void v) {
            if (t.isStatic() && t.getQualifiedIdentifier() instanceof MemberSelectTree ms
                && !ms.getIdentifier().contentEquals("*")) {
                Element owner = trees.getElement(new TreePath(
                    new TreePath(getCurrentPath(), ms), ms.getExpression()));
                long end = pos.getEndPosition(unit, ms);
                if (owner instanceof TypeElement type && end > 0) {
                    for (Element member : type.getEnclosedElements()) {
                        if (member.getSimpleName().contentEquals(ms.getIdentifier())
                            && member.getModifiers().contains(Modifier.STATIC))
                            use(member, end - ms.getIdentifier().length());
                    }
                }
                return null;
            }
            return super.visitImport(t, v);
        }

        // `super(...)` and `this(...)` in a constructor call one (placed at the keyword)
        @Override public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
            if (t.getMethodSelect() instanceof IdentifierTree id) {
                String n = id.getName().toString();
                if (n.equals("super") || n.equals("this")) {
                    Element e = trees.getElement(new TreePath(getCurrentPath(), id));
                    if (e != null && e.getKind() == ElementKind.CONSTRUCTOR) {
                        String d = declared(e);
                        long at = pos.getStartPosition(unit, id);
                        if (d != null && at >= 0 && text.get(unit).startsWith(n, (int) at))
                            out.append(rel(unit)).append('\t').append(place(unit, at))
                               .append('\t').append(d).append('\n');
                    }
                }
            }
            return super.visitMethodInvocation(t, v);
        }

        @Override public Void visitMemberSelect(MemberSelectTree t, Void v) {
            String n = t.getIdentifier().toString();
            long end = pos.getEndPosition(unit, t);
            if (!n.equals("class") && !n.equals("this") && !n.equals("super") && end > 0)
                use(trees.getElement(getCurrentPath()), end - n.length());
            return super.visitMemberSelect(t, v);
        }

        @Override public Void visitMemberReference(MemberReferenceTree t, Void v) {
            String n = t.getName().toString();
            long end = pos.getEndPosition(unit, t);
            if (!n.equals("<init>") && end > 0)
                use(trees.getElement(getCurrentPath()), end - n.length());
            return super.visitMemberReference(t, v);
        }

        @Override public Void visitNewClass(NewClassTree t, Void v) {
            Element ctor = trees.getElement(getCurrentPath());
            Tree id = t.getIdentifier();
            while (id instanceof ParameterizedTypeTree p) id = p.getType();
            while (id instanceof AnnotatedTypeTree a) id = a.getUnderlyingType();
            if (ctor != null && t.getClassBody() == null && id != null) {
                long end = pos.getEndPosition(unit, id);
                String n = ctor.getEnclosingElement().getSimpleName().toString();
                if (end > 0) use(ctor, end - n.length());
            }
            return super.visitNewClass(t, v);
        }
    }
}
