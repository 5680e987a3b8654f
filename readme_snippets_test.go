package sqsq_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeSnippets keeps the README's Go honest for a newcomer who
// copies it: every ```go block is in a test file of the repository (so it
// compiles and runs), and every package it uses is imported by the block
// itself, named in an "(imports: …)" note right after it, or, when the text
// before it says "same imports as above", by the block before.
func TestReadmeSnippets(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	sources := goSources(t)
	blocks := goBlocks(string(readme))
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in README.md; the parser is off", len(blocks))
	}
	var prevImports []string
	for _, b := range blocks {
		name := strings.SplitN(b.body, "\n", 2)[0]
		imports, body := splitImports(b.body)
		if len(imports) == 0 {
			imports = append(imports, b.noted...)
			if b.sameAsAbove {
				imports = append(imports, prevImports...)
			}
		}
		prevImports = imports
		if !slices.ContainsFunc(sources, func(src string) bool { return strings.Contains(src, normalize(body)) }) {
			t.Errorf("README block %q is in no test file; put it in one (verbatim, gofmt'ed) so it compiles", name)
		}
		for _, pkg := range usedPackages(b.body) {
			if !slices.ContainsFunc(imports, func(path string) bool { return pkgName(path) == pkg }) {
				t.Errorf("README block %q uses package %s but neither imports it nor names it in an \"(imports: …)\" note", name, pkg)
			}
		}
	}
}

type goBlock struct {
	body        string
	noted       []string // import paths of an "(imports: …)" note after it
	sameAsAbove bool
}

var (
	fence   = regexp.MustCompile("(?s)```go\n(.*?)```\n")
	noted   = regexp.MustCompile(`(?s)^\s*\(imports: (.*?)\.\)`)
	backtic = regexp.MustCompile("`([^`]+)`")
)

func goBlocks(md string) []goBlock {
	var blocks []goBlock
	for _, m := range fence.FindAllStringSubmatchIndex(md, -1) {
		b := goBlock{body: md[m[2]:m[3]]}
		before := md[max(0, m[0]-200):m[0]]
		b.sameAsAbove = strings.Contains(strings.Join(strings.Fields(before), " "), "same imports as above")
		if n := noted.FindStringSubmatch(md[m[1]:]); n != nil {
			for _, p := range backtic.FindAllStringSubmatch(n[1], -1) {
				b.noted = append(b.noted, p[1])
			}
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// splitImports returns the import paths of a block that is a whole file,
// and the block without its build constraint, package clause and imports.
func splitImports(block string) ([]string, string) {
	if !strings.Contains(block, "package ") {
		return nil, block
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", block, parser.ImportsOnly)
	if err != nil {
		return nil, block
	}
	var paths []string
	for _, s := range f.Imports {
		paths = append(paths, strings.Trim(s.Path.Value, `"`))
	}
	end := f.Name.End()
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			end = g.End()
		}
	}
	return paths, block[fset.Position(end).Offset:]
}

// usedPackages are the package-like names a block selects from: x in x.Y,
// where x is declared nowhere in the block and is the name of a package
// the repository imports somewhere (so variables of the surrounding test,
// like q or ctx, are not taken for packages).
func usedPackages(block string) []string {
	src := block
	if !strings.HasPrefix(block, "package ") && !strings.HasPrefix(block, "//go:build") {
		src = "package p\n" + block // declarations
		if _, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution); err != nil {
			src = "package p\nfunc _() {\n" + block + "\n}" // statements
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return []string{"<unparsable: " + err.Error() + ">"}
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					declared[id.Name] = true
				}
			}
		case *ast.Field:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		}
		return true
	})
	var used []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && !declared[id.Name] && knownPackages[id.Name] && !slices.Contains(used, id.Name) {
				used = append(used, id.Name)
			}
		}
		return true
	})
	return used
}

var knownPackages = map[string]bool{
	"context": true, "errors": true, "fmt": true, "time": true, "testing": true, "synctest": true, "httptest": true,
	"http": true, "aws": true, "sqs": true, "types": true, "clock": true, "sqsq": true, "sqshttp": true,
	"awssqs": true, "sqsqtest": true, "rapid": true, "slog": true,
}

func pkgName(path string) string { return path[strings.LastIndex(path, "/")+1:] }

// normalize makes a block comparable with a source file: indentation and
// gofmt's alignment do not matter, nor do blank lines.
func normalize(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// goSources are the repository's test files, normalized.
func goSources(t *testing.T) []string {
	var srcs []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			srcs = append(srcs, normalize(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}
