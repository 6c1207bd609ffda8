package i18n

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func placeholders(v any) []string {
	var out []string
	add := func(s string) {
		for _, m := range arg.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	switch v := v.(type) {
	case string:
		add(v)
	case map[string]any:
		for _, f := range v {
			add(f.(string))
		}
	}
	slices.Sort(out)
	return out
}

// TestCatalogues: both catalogues hold the same keys, no text is empty,
// plural texts have their "other" form, and a key's texts name the same
// arguments in both languages (a Turkish text never drops one).
func TestCatalogues(t *testing.T) {
	en, tr := Catalogue("en"), Catalogue("tr")
	if len(en) < 100 {
		t.Fatalf("the English catalogue has %d keys", len(en))
	}
	for _, l := range Langs {
		c := Catalogue(l)
		other := Catalogue(Langs[0])
		if l == Langs[0] {
			other = tr
		}
		for k, v := range c {
			if _, ok := other[k]; !ok {
				t.Errorf("%s.json has %q, the other catalogue does not", l, k)
			}
			switch v := v.(type) {
			case string:
				if strings.TrimSpace(v) == "" {
					t.Errorf("%s.json: %q is empty", l, k)
				}
			case map[string]any:
				for f, x := range v {
					if strings.TrimSpace(x.(string)) == "" {
						t.Errorf("%s.json: %q form %q is empty", l, k, f)
					}
				}
			}
		}
	}
	for k, v := range en {
		if a, b := placeholders(v), placeholders(tr[k]); !slices.Equal(a, b) {
			t.Errorf("%q names %v in English, %v in Turkish", k, a, b)
		}
	}
}

// TestParse: a catalogue that is not keys to texts is refused, naming
// the key.
func TestParse(t *testing.T) {
	for _, bad := range []string{`{"a": 1}`, `{"a": {"one": "x"}}`, `{"a": {"other": 2}}`, `[]`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) took it", bad)
		}
	}
	if _, err := Parse([]byte(`{"a": "x", "b": {"one": "y", "other": "z"}}`)); err != nil {
		t.Error(err)
	}
}

// TestRender: arguments, plurals and nested texts, as the page renders
// them; a missing key renders as itself.
func TestRender(t *testing.T) {
	for _, c := range []struct {
		lang string
		t    Text
		want string
	}{
		{"en", T("lib.games", "n", 1), "1 game"},
		{"en", T("lib.games", "n", 3), "3 games"},
		{"tr", T("lib.games", "n", 3), "3 oyun"},
		{"tr", T("hub.refuse.turn", "who", T("seat.north")), "Sıra sizde değil; sıra: kuzey."},
		{"en", T("no.such.key"), "no.such.key"},
	} {
		if got := Render(c.lang, c.t); got != c.want {
			t.Errorf("Render(%s, %v) = %q, want %q", c.lang, c.t, got, c.want)
		}
	}
}

var (
	// a catalogue key as a string literal in the pages' scripts, the
	// HTML's data-i18n attributes and Go's i18n.T; followed by + it is a
	// prefix the code completes ("seat." + seat)
	jsKey   = regexp.MustCompile(`"([a-z][a-z0-9]*(?:\.[a-z0-9-]+)+\.?)"(\s*\+)?`)
	htmlKey = regexp.MustCompile(`data-i18n(?:-[a-z-]+)?="([^"]+)"`)
	goKey   = regexp.MustCompile(`i18n\.T\("([^"]+)"(\s*\+)?`)
	// a key in a Go template of a page the hub words ({{say (T "key" …)}})
	tmplKey = regexp.MustCompile(`\(T "([^"]+)"`)
	// any literal a page hands to T directly, whatever its prefix
	jsCall = regexp.MustCompile(`\bT\("([^"]+)"(\s*\+)?`)
)

// TestKeysUsed: every key the pages (webui's and the hub's) and the Go
// code use is in the catalogues; a prefix the code completes is the
// prefix of some key.
func TestKeysUsed(t *testing.T) {
	en := Catalogue("en")
	prefixes := map[string]bool{}
	for k := range en {
		prefixes[strings.SplitN(k, ".", 2)[0]] = true
	}
	hasPrefix := func(p string) bool {
		for k := range en {
			if strings.HasPrefix(k, p) && k != p {
				return true
			}
		}
		return false
	}
	used := 0
	check := func(file, key string, prefix bool) {
		used++
		if prefix {
			if !hasPrefix(key) {
				t.Errorf("%s: no key begins with %q", file, key)
			}
			return
		}
		if _, ok := en[key]; !ok {
			t.Errorf("%s: key %q is not in the catalogues", file, key)
		}
	}
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(path)
		if ext != ".js" && ext != ".html" && (ext != ".go" || strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(b)
		switch ext {
		case ".js":
			for _, m := range jsCall.FindAllStringSubmatch(s, -1) {
				check(path, m[1], m[2] != "" || strings.HasSuffix(m[1], "."))
			}
			for _, m := range jsKey.FindAllStringSubmatch(s, -1) {
				k := m[1]
				if !prefixes[strings.SplitN(k, ".", 2)[0]] || regexp.MustCompile(`\.(html|js|css|json|svg|png)$`).MatchString(k) {
					continue
				}
				check(path, k, m[2] != "" || strings.HasSuffix(k, "."))
			}
		case ".html":
			for _, m := range htmlKey.FindAllStringSubmatch(s, -1) {
				check(path, m[1], false)
			}
		case ".go":
			for _, m := range goKey.FindAllStringSubmatch(s, -1) {
				check(path, m[1], m[2] != "")
			}
			for _, m := range tmplKey.FindAllStringSubmatch(s, -1) {
				check(path, m[1], false)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used < 300 {
		t.Errorf("found %d uses of keys: the scan misses them", used)
	}
	// the keys the code makes: every seat and die face of the five
	// games, GYGES's heights, the variants
	for _, k := range []string{"seat.red", "seat.yellow", "seat.blue", "seat.black", "seat.white", "seat.north", "seat.south",
		"face.N", "face.S", "face.E", "face.W", "face.say.N", "face.say.S", "face.say.E", "face.say.W",
		"piece.height1", "piece.height2", "piece.height3", "piece.a.height1", "piece.a.height2", "piece.a.height3",
		"variant.advanced", "paused.why.full", "paused.why.read-only", "paused.why.gone", "paused.do.full", "paused.do.read-only", "paused.do.gone"} {
		if _, ok := en[k]; !ok {
			t.Errorf("key %q is made by the code and not in the catalogues", k)
		}
	}
}
