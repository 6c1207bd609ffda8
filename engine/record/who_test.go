package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tabla-board/tabla/engine/record"
)

// TestWho reads a header's who and where, writes it back and reads the same.
func TestWho(t *testing.T) {
	const text = `{"tabla":1,"game":"star","first":"red","names":{"red":"Ayşe Yılmaz","white":"Bora"},` +
		`"event":"Kadıköy club evening","round":"3.2","site":"Moda, İstanbul","date":"2026-11-26"}` + "\n" + `{"move":"b1-d9"}` + "\n"
	g, err := record.Replay(strings.NewReader(text), "who.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := record.Who{Names: map[string]string{"red": "Ayşe Yılmaz", "white": "Bora"}, Event: "Kadıköy club evening",
		Round: "3.2", Site: "Moda, İstanbul", Date: "2026-11-26"}
	if got := g.Header.Who(); !sameWho(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	var buf bytes.Buffer
	if err := record.NewWriter(&buf).WriteHeader(g.Header); err != nil {
		t.Fatal(err)
	}
	h, err := record.NewReader(&buf, "again").Header()
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Who(); !sameWho(got, want) {
		t.Fatalf("written and read again: got %+v, want %+v", got, want)
	}
}

func sameWho(a, b record.Who) bool {
	if len(a.Names) != len(b.Names) {
		return false
	}
	for k, v := range a.Names {
		if b.Names[k] != v {
			return false
		}
	}
	return a.Event == b.Event && a.Round == b.Round && a.Site == b.Site && a.Date == b.Date
}

// TestWhoErrors: a wrong field is an ErrHeader on line 1 naming the field.
func TestWhoErrors(t *testing.T) {
	for _, tc := range []struct {
		name, fields string
		field, msg   string
	}{
		{"unknown seat", `"names":{"green":"Ayşe"}`, "names.green", "not a seat of star (red, white)"},
		{"empty name", `"names":{"red":""}`, "names.red", "empty"},
		{"spaces", `"names":{"white":" Bora"}`, "names.white", "starts or ends with space"},
		{"control", `"event":"club\nnight"`, "event", "control character U+000A"},
		{"long site", `"site":"` + strings.Repeat("ş", record.MaxText+1) + `"`, "site", "101 characters, at most 100"},
		{"names not object", `"names":["Ayşe"]`, "", "names"},
		{"names null", `"names":null`, "names", "want an object"},
		{"round zero", `"round":"0"`, "round", "want a round number"},
		{"round letters", `"round":"3a"`, "round", "want a round number"},
		{"round empty part", `"round":"3."`, "round", "want a round number"},
		{"date", `"date":"26.11.2026"`, "date", "want a date YYYY-MM-DD"},
		{"date day", `"date":"2026-02-30"`, "date", "want a date YYYY-MM-DD"},
		{"event number", `"event":3`, "", "event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := `{"tabla":1,"game":"star","first":"red",` + tc.fields + "}\n"
			_, err := record.Replay(strings.NewReader(text), "bad.jsonl")
			var re *record.Error
			if !errors.As(err, &re) || !errors.Is(err, record.ErrHeader) {
				t.Fatalf("got %v, want an ErrHeader", err)
			}
			if re.Line != 1 || re.Field != tc.field || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got line %d field %q %q, want line 1 field %q and %q", re.Line, re.Field, err, tc.field, tc.msg)
			}
			if tc.field != "" && !strings.HasPrefix(err.Error(), "bad.jsonl:1: line 1: header: "+tc.field+": ") {
				t.Errorf("got %q, want it to name the file, line and field", err)
			}
		})
	}
}

// TestCheckWho checks values a program is about to write as the reader
// does.
func TestCheckWho(t *testing.T) {
	h := &record.Header{Game: "ray", Names: map[string]string{"red": "Ayşe", "black": "Can"}, Round: "2"}
	if err := record.CheckWho(h, []string{"red", "yellow", "blue", "black"}); err != nil {
		t.Fatal(err)
	}
	h.Names["white"] = "Deniz"
	var fe *record.FieldError
	if err := record.CheckWho(h, []string{"red", "yellow", "blue", "black"}); !errors.As(err, &fe) || fe.Field != "names.white" {
		t.Errorf("got %v, want a FieldError on names.white", err)
	}
}
