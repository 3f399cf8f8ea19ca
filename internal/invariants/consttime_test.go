package invariants

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// secretName matches the names of values that must never be compared with
// ==, != or bytes.Equal: a timing difference would tell an attacker how
// much of a guess was right.
var secretName = regexp.MustCompile(`(?i)(hash|secret|mac|signature|sig$|token|digest|password|csrf|apikey|^key$)`)

// notSecret are names the pattern catches that hold nothing secret.
var notSecret = map[string]bool{"TokenType": true, "tokenType": true}

// TestSecretsComparedInConstantTime reads every Go file of the module
// (tests aside) and fails on ==, != or bytes.Equal between values whose
// names say they are secrets, hashes or MACs, unless one side is a
// literal or nil (an emptiness check). Use subtle.ConstantTimeCompare or
// hmac.Equal instead. A comparison that is safe can be marked on its line
// with a comment "// not secret: <why>".
func TestSecretsComparedInConstantTime(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		checked++
		lines := strings.Split(string(src), "\n")
		report := func(n ast.Node, what string) {
			pos := fset.Position(n.Pos())
			if line := lines[pos.Line-1]; strings.Contains(line, "// not secret:") {
				return
			}
			rel, _ := filepath.Rel(root, pos.Filename)
			t.Errorf("%s:%d: %s; compare secrets with subtle.ConstantTimeCompare or hmac.Equal", rel, pos.Line, what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.BinaryExpr:
				if e.Op != token.EQL && e.Op != token.NEQ {
					return true
				}
				if isEmpty(e.X) || isEmpty(e.Y) {
					return true
				}
				if name := secretOperand(e.X, e.Y); name != "" {
					report(e, e.Op.String()+" on "+name)
				}
			case *ast.CallExpr:
				if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Equal" {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "bytes" {
						if name := secretOperand(e.Args...); name != "" {
							report(e, "bytes.Equal on "+name)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files read from %s", checked, root)
	}
}

// secretOperand returns the first operand whose name says it is secret.
func secretOperand(es ...ast.Expr) string {
	for _, e := range es {
		if name := exprName(e); name != "" && secretName.MatchString(name) && !notSecret[name] {
			return name
		}
	}
	return ""
}

// exprName is the last name of an identifier, a field, an index or a
// conversion of one; "" for anything else.
func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.IndexExpr:
		return exprName(x.X)
	case *ast.CallExpr: // string(x), []byte(x)
		if len(x.Args) == 1 {
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "string" {
				return exprName(x.Args[0])
			}
			if _, ok := x.Fun.(*ast.ArrayType); ok {
				return exprName(x.Args[0])
			}
		}
	case *ast.ParenExpr:
		return exprName(x.X)
	}
	return ""
}

// isEmpty reports whether e is a literal or nil: comparing with it says
// whether a value is set, not what it is.
func isEmpty(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return x.Name == "nil"
	}
	return false
}

// moduleRoot is the directory of go.mod above the test.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
