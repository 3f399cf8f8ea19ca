package invariants

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The map of packages in docs/architecture.md is checked against the code
// in two parts: the list of imports below the picture (a fenced block
// "imports", one line per package: "pkg → imports…") must be exactly the
// imports among the module's packages, and every arrow drawn in the
// picture must be one of the code's imports.

const archDoc = "docs/architecture.md"

// TestArchitectureImports compares the doc's list of imports with the
// imports of the module's packages (tests, commands, cmd/ and bench/
// aside) and names every arrow one has and the other lacks.
func TestArchitectureImports(t *testing.T) {
	root := moduleRoot(t)
	code := moduleImports(t, root)
	doc := readArchDoc(t, root)
	listed, err := parseImportList(doc)
	if err != nil {
		t.Fatalf("%s: %v", archDoc, err)
	}
	mapped := map[string]bool{}
	for pkg, p := range code {
		if p.mapped {
			mapped[pkg] = true
		}
	}
	for _, pkg := range sortedKeys(mapped) {
		if _, ok := listed[pkg]; !ok {
			t.Errorf("%s: package %s is missing from the list of imports; add the line\n\t%s", archDoc, pkg, importLine(pkg, code[pkg].imports))
		}
	}
	for _, pkg := range sortedKeys(listed) {
		if !mapped[pkg] {
			t.Errorf("%s: the list of imports has %s, which is no package of the map (none, a command, or under cmd/ or bench/)", archDoc, pkg)
			continue
		}
		for _, imp := range code[pkg].imports {
			if !listed[pkg][imp] {
				t.Errorf("%s: arrow %s → %s is missing: %s imports %s", archDoc, pkg, imp, pkg, imp)
			}
		}
		for _, imp := range sortedKeys(listed[pkg]) {
			if !slices.Contains(code[pkg].imports, imp) {
				t.Errorf("%s: arrow %s → %s is extra: %s does not import %s", archDoc, pkg, imp, pkg, imp)
			}
		}
	}
}

// TestArchitecturePicture reads the arrows of the picture under
// "## Packages" and fails on any the code does not have, and on any line
// that does not end at a package. Lines are read as drawn with box
// characters: a connected set of lines is one bundle, the packages at its
// arrowheads are imported by every package at its other ends. Arrows
// from cmd/taskd are checked too.
func TestArchitecturePicture(t *testing.T) {
	root := moduleRoot(t)
	code := moduleImports(t, root)
	picture, err := packagePicture(readArchDoc(t, root))
	if err != nil {
		t.Fatalf("%s: %v", archDoc, err)
	}
	arrows, names, errs := readPicture(picture, func(label string) bool { _, ok := code[label]; return ok })
	for _, err := range errs {
		t.Errorf("%s, picture: %v", archDoc, err)
	}
	if len(arrows) == 0 && len(errs) == 0 {
		t.Fatalf("%s: the picture has no arrows", archDoc)
	}
	for _, a := range arrows {
		if !slices.Contains(code[a[0]].imports, a[1]) {
			t.Errorf("%s, picture: arrow %s → %s is extra: %s does not import %s", archDoc, a[0], a[1], a[0], a[1])
		}
	}
	for pkg, p := range code {
		if p.mapped && !names[pkg] {
			t.Errorf("%s, picture: package %s is not in the picture; name it (as %s/), with its arrows or among the leaves", archDoc, pkg, pkg)
		}
	}
}

// pkgInfo is one package of the module.
type pkgInfo struct {
	imports []string // the module's packages it imports, relative to the module, sorted
	mapped  bool     // whether the list of imports must have it
}

// moduleImports reads the non-test imports of every package of the module,
// by the module's relative names ("taskd" for the root).
func moduleImports(t *testing.T, root string) map[string]pkgInfo {
	t.Helper()
	mod := modulePath(t, root)
	out := map[string]pkgInfo{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		info := pkgInfo{mapped: p.Name != "main" && !strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "bench/")}
		for _, imp := range p.Imports {
			if name, ok := shortName(mod, imp); ok {
				info.imports = append(info.imports, name)
			}
		}
		slices.Sort(info.imports)
		out[shortNameOf(rel)] = info
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func modulePath(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(mod)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// shortName turns an import path of the module into the name the map uses:
// the path inside the module, and "taskd" for the root.
func shortName(mod, imp string) (string, bool) {
	if imp == mod {
		return "taskd", true
	}
	rel, ok := strings.CutPrefix(imp, mod+"/")
	return rel, ok
}

func shortNameOf(rel string) string {
	if rel == "." {
		return "taskd"
	}
	return rel
}

func readArchDoc(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, archDoc))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fencedBlock returns the lines of the first fenced block after the line
// that starts with after and whose opening fence is "```"+info.
func fencedBlock(doc, after, info string) ([]string, error) {
	lines := strings.Split(doc, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, after) })
	if start < 0 {
		return nil, fmt.Errorf("no line starts with %q", after)
	}
	for i := start + 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```"+info {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "```" {
				return lines[i+1 : j], nil
			}
		}
		return nil, fmt.Errorf("the block ```%s after %q is not closed", info, after)
	}
	return nil, fmt.Errorf("no block ```%s after %q", info, after)
}

// parseImportList reads the block "imports": lines "pkg → a b c", where
// "—" or nothing after the arrow means no import of the module.
func parseImportList(doc string) (map[string]map[string]bool, error) {
	lines, err := fencedBlock(doc, "## Packages", "imports")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for n, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		pkg, imps, ok := strings.Cut(line, "→")
		pkg = strings.TrimSpace(pkg)
		if !ok || pkg == "" || strings.ContainsAny(pkg, " \t") {
			return nil, fmt.Errorf("list of imports, line %d: %q is not \"package → imports\"", n+1, line)
		}
		if _, dup := out[pkg]; dup {
			return nil, fmt.Errorf("list of imports: %s is listed twice", pkg)
		}
		set := map[string]bool{}
		for _, imp := range strings.Fields(imps) {
			if imp != "—" {
				set[imp] = true
			}
		}
		out[pkg] = set
	}
	return out, nil
}

func importLine(pkg string, imports []string) string {
	if len(imports) == 0 {
		return pkg + " → —"
	}
	return pkg + " → " + strings.Join(imports, " ")
}

func packagePicture(doc string) ([]string, error) {
	return fencedBlock(doc, "## Packages", "")
}

// A direction on the picture's grid.
type dir struct{ dr, dc int }

var (
	north = dir{-1, 0}
	south = dir{1, 0}
	east  = dir{0, 1}
	west  = dir{0, -1}
)

// boxLinks are the directions each line character joins.
var boxLinks = map[rune][]dir{
	'─': {west, east}, '│': {north, south},
	'┌': {east, south}, '┐': {west, south}, '└': {north, east}, '┘': {north, west},
	'├': {north, south, east}, '┤': {north, south, west},
	'┬': {west, east, south}, '┴': {west, east, north}, '┼': {north, south, east, west},
	// Arrowheads join the line behind them.
	'▼': {north}, '▲': {south}, '▶': {west}, '◀': {east},
}

// arrowPoints is where each arrowhead points.
var arrowPoints = map[rune]dir{'▼': south, '▲': north, '▶': east, '◀': west}

func isBox(r rune) bool { _, ok := boxLinks[r]; return ok }

// readPicture reads the arrows of a picture drawn with box characters.
// Labels are words of the picture (a trailing "/" is dropped) for which
// known is true. Each connected set of lines is one bundle: every label
// at one of its arrowheads is imported by every label at one of its other
// ends. A line ends at a label when the label is the next cell, or the
// one after a single space on the same row. names has every known label
// written in the picture.
func readPicture(lines []string, known func(string) bool) (arrows [][2]string, names map[string]bool, errs []error) {
	grid := make([][]rune, len(lines))
	for i, l := range lines {
		grid[i] = []rune(l)
	}
	at := func(r, c int) rune {
		if r < 0 || r >= len(grid) || c < 0 || c >= len(grid[r]) {
			return ' '
		}
		return grid[r][c]
	}
	// Every word of the picture, by its cells.
	type word struct {
		text      string
		row, col0 int
	}
	wordAt := map[[2]int]*word{}
	names = map[string]bool{}
	for r, row := range grid {
		for c := 0; c < len(row); {
			if row[c] == ' ' || isBox(row[c]) {
				c++
				continue
			}
			w := &word{row: r, col0: c}
			for c < len(row) && row[c] != ' ' && !isBox(row[c]) {
				wordAt[[2]int{r, c}] = w
				c++
			}
			w.text = strings.TrimSuffix(string(row[w.col0:c]), "/")
			if known(w.text) {
				names[w.text] = true
			}
		}
	}
	where := func(r, c int) string { return fmt.Sprintf("line %d, column %d", r+1, c+1) }
	seen := map[[2]int]bool{}
	for r, row := range grid {
		for c, ch := range row {
			if !isBox(ch) || seen[[2]int{r, c}] {
				continue
			}
			// One bundle: every line cell joined to this one.
			tails, heads := map[string]bool{}, map[string]bool{}
			queue := [][2]int{{r, c}}
			seen[[2]int{r, c}] = true
			for len(queue) > 0 {
				cell := queue[0]
				queue = queue[1:]
				ch := at(cell[0], cell[1])
				ends := slices.Clone(boxLinks[ch])
				if d, ok := arrowPoints[ch]; ok {
					ends = append(ends, d)
				}
				for _, d := range ends {
					nr, nc := cell[0]+d.dr, cell[1]+d.dc
					next := at(nr, nc)
					if _, arrow := arrowPoints[ch]; !arrow || d != arrowPoints[ch] {
						if slices.Contains(boxLinks[next], dir{-d.dr, -d.dc}) {
							if !seen[[2]int{nr, nc}] {
								seen[[2]int{nr, nc}] = true
								queue = append(queue, [2]int{nr, nc})
							}
							continue
						}
					}
					// An open end: it must reach a label.
					w := wordAt[[2]int{nr, nc}]
					if w == nil && next == ' ' && d.dr == 0 {
						w = wordAt[[2]int{nr, nc + d.dc}]
					}
					switch {
					case w == nil:
						errs = append(errs, fmt.Errorf("%s: a line ends at no package", where(cell[0], cell[1])))
					case !known(w.text):
						errs = append(errs, fmt.Errorf("%s: a line ends at %q, which is no package of the module", where(cell[0], cell[1]), w.text))
					case d == arrowPoints[ch] && isArrow(ch):
						heads[w.text] = true
					default:
						tails[w.text] = true
					}
				}
			}
			if len(heads) == 0 || len(tails) == 0 {
				errs = append(errs, fmt.Errorf("%s: the lines joined here need a package at an arrowhead and one at another end", where(r, c)))
				continue
			}
			for _, from := range sortedKeys(tails) {
				for _, to := range sortedKeys(heads) {
					arrows = append(arrows, [2]string{from, to})
				}
			}
		}
	}
	return arrows, names, errs
}

func isArrow(r rune) bool { _, ok := arrowPoints[r]; return ok }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
