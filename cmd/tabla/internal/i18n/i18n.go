// Package i18n is the players' words in every language tabla speaks: one
// message catalogue per language (en.json, tr.json), embedded in the
// binary. The pages (webui's and the hub's) load both catalogues as one
// script (Script) and render every text a player reads or hears from them
// (webui/static/i18n.js); texts made in Go for players are a key with
// arguments (Text) that the page renders in its language. The daemon's
// logs and the CLI stay English: Text.English renders the English.
//
// A catalogue maps a key to a text, or to its plural forms by the CLDR
// categories of Intl.PluralRules ({"one": …, "other": …}). A text names its
// arguments in braces: "{seat} to move". The test checks that both
// catalogues hold the same keys, that no text is empty and that every key
// the pages and the Go code use is in them.
package i18n

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

//go:embed en.json tr.json
var files embed.FS

// Langs are the catalogues' languages, the first the fallback.
var Langs = []string{"en", "tr"}

// Text is a player's text as a key and its arguments, for the page to
// render in its language.
type Text struct {
	Key  string         `json:"key"`
	Args map[string]any `json:"args,omitempty"`
}

// T makes a Text of a key and name/value pairs of arguments.
func T(key string, kv ...any) Text {
	t := Text{Key: key}
	if len(kv) > 0 {
		t.Args = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			t.Args[fmt.Sprint(kv[i])] = kv[i+1]
		}
	}
	return t
}

var catalogues = func() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, l := range Langs {
		b, err := files.ReadFile(l + ".json")
		if err != nil {
			panic(err)
		}
		c, err := Parse(b)
		if err != nil {
			panic(fmt.Sprintf("i18n: %s.json: %v", l, err))
		}
		out[l] = c
	}
	return out
}()

// Parse reads a catalogue: a JSON object of keys to a text or an object of
// plural forms (each a text).
func Parse(b []byte) (map[string]any, error) {
	var c map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&c); err != nil {
		return nil, err
	}
	for k, v := range c {
		switch v := v.(type) {
		case string:
		case map[string]any:
			if _, ok := v["other"]; !ok {
				return nil, fmt.Errorf("key %q: plural forms without \"other\"", k)
			}
			for f, x := range v {
				if _, ok := x.(string); !ok {
					return nil, fmt.Errorf("key %q: plural form %q is not a text", k, f)
				}
			}
		default:
			return nil, fmt.Errorf("key %q: not a text or plural forms", k)
		}
	}
	return c, nil
}

// Catalogue is a language's catalogue (nil for a language tabla does not
// speak). Callers must not change it.
func Catalogue(lang string) map[string]any { return catalogues[lang] }

// Keys are a catalogue's keys, sorted.
func Keys(lang string) []string {
	var out []string
	for k := range catalogues[lang] {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var arg = regexp.MustCompile(`\{(\w+)\}`)

// English renders the text in English (for logs, the CLI and the English
// fields the APIs keep). A missing key renders as the key.
func (t Text) English() string { return Render("en", t) }

// Render renders a text in a language, as the page's I18N.t does: a
// plural text chooses its form by the argument n (English and Turkish
// rules: "one" for 1 in English; Turkish has the same two categories).
func Render(lang string, t Text) string {
	v, ok := catalogues[lang][t.Key]
	if !ok {
		v, ok = catalogues["en"][t.Key]
	}
	if !ok {
		return t.Key
	}
	s, _ := v.(string)
	if forms, ok := v.(map[string]any); ok {
		form := "other"
		if n, ok := t.Args["n"]; ok && fmt.Sprint(n) == "1" {
			form = "one"
		}
		if f, ok := forms[form].(string); ok {
			s = f
		} else {
			s, _ = forms["other"].(string)
		}
	}
	return arg.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		if a, ok := t.Args[name]; ok {
			if sub, ok := a.(Text); ok {
				return Render(lang, sub)
			}
			return fmt.Sprint(a)
		}
		return m
	})
}

// Script is the catalogues as a script for the pages: it sets
// I18N_CATALOGUES to {"en": {…}, "tr": {…}} (webui serves it as
// catalogue.js, before i18n.js).
func Script() []byte {
	var b strings.Builder
	b.WriteString("\"use strict\";\n// the message catalogues (cmd/tabla/internal/i18n), one per language\nconst I18N_CATALOGUES = ")
	data, _ := json.Marshal(catalogues)
	b.Write(data)
	b.WriteString(";\n")
	return []byte(b.String())
}

// Refusal is an error a person at a page is told of: Err for the log, the
// CLI and the API (English, with the developer's detail), Say the same in
// the page's words. The pages show Say when an answer carries it.
type Refusal struct {
	Err error
	Say Text
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// Refuse words err for the person at the page.
func Refuse(say Text, err error) error { return &Refusal{Err: err, Say: say} }
