package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stdlib decodes b as the sandbox did before this package: json.Decoder
// with UseNumber, one value, then whether nothing but space follows.
func stdlib(b []byte) (v any, ok, one bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, false, false
	}
	_, err := dec.Token()
	return v, true, errors.Is(err, io.EOF)
}

func check(t *testing.T, b []byte) {
	t.Helper()
	want, wantOK, wantOne := stdlib(b)
	got, end, err := Decode(b)
	if (err == nil) != wantOK {
		t.Fatalf("%q: decoded %v, encoding/json %v", b, err == nil, wantOK)
	}
	if !wantOK {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: tree\n%#v\nencoding/json\n%#v", b, got, want)
	}
	// encoding/json ends a number at the top level where the next
	// byte cannot go on; what follows is then not space (or not JSON).
	if one := OnlySpace(b[end:]); one != wantOne {
		t.Fatalf("%q: only space after the value %v, encoding/json %v", b, one, wantOne)
	}
	if _, ok := DecodeOne(b); ok != wantOne {
		t.Fatalf("%q: DecodeOne %v, encoding/json %v", b, ok, wantOne)
	}
	doc, _ := DecodeDoc(b)
	repeats, lower := namesByTokens(b)
	if doc.Repeats != repeats {
		t.Fatalf("%q: repeats a name %v, by encoding/json's tokens %v", b, doc.Repeats, repeats)
	}
	if doc.LowerNames != lower {
		t.Fatalf("%q: names all lower-case %v, by encoding/json's tokens %v", b, doc.LowerNames, lower)
	}
}

// namesByTokens tells, by json.Decoder's tokens of b's first value,
// whether an object of it names a member twice, and whether every name is
// lower-case ASCII letters, digits and underscores.
func namesByTokens(b []byte) (repeats, lower bool) {
	lower = true
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var open []map[string]bool // per open object its names; nil for an array
	expectName := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return false, lower
		}
		switch tok {
		case json.Delim('{'):
			open = append(open, map[string]bool{})
			expectName = true
			continue
		case json.Delim('['):
			open = append(open, nil)
			expectName = false
			continue
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
		default:
			if name, ok := tok.(string); ok && expectName {
				top := open[len(open)-1]
				if top[name] {
					repeats = true
				}
				top[name] = true
				for _, c := range name {
					if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
						lower = false
					}
				}
				expectName = false
				continue
			}
		}
		if len(open) == 0 {
			return repeats, lower
		}
		expectName = open[len(open)-1] != nil
	}
}

var cases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":{"b":[1,2,{"c":null}]}}`,
	`[1, -0, 0.5, -1.5e10, 1E+2, 1e-2, 2.0]`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `--1`, `+1`, `0x10`,
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t"`, `"\u0041\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`,
	`"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\ud83d\ude00"`, `"\u12"`, `"\x"`, "\"a\x01b\"", "\"\xff\xfe\"",
	"\"caf\xc3\xa9\"", "\"\xe2\x82\"", `"مرحبا"`, `true`, `false`, `null`, `tru`, `nul`, `truex`,
	`{"a" 1}`, `{"a":}`, `{,}`, `{"a":1,}`, `[1,]`, `[,1]`, `[1 2]`, `{1:2}`, `{"a":1}}`, `{"a":1} {}`,
	`123abc`, `123 `, " \t\r\n{\"k\" : [ true , false ] }\n ", "\xef\xbb\xbf{}", `"`, `"abc`, `{"a`, `[`, `{`,
	`[[[]]]`, `{"":""}`, `"\u0000"`, `1e400`, `-0.0e-0`,
	`{"a":{"a":1},"b":{"a":1}}`, `[{"a":1},{"a":2}]`, `{"a":[{"b":1,"b":2}]}`, `{"\u0061":1,"a":2}`,
	`{"a":1,"b":{"c":1},"a":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"A":1}`, `[{"a_1":{"B":2}}]`, `{"k\u212a":1}`, `{"a b":1}`,
}

func TestDecodeIsEncodingJSON(t *testing.T) {
	for _, c := range cases {
		check(t, []byte(c))
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "checkout.json")); err == nil {
		check(t, b)
	} else {
		t.Fatal(err)
	}
}

// encoding/json refuses a document nested more than 10,000 deep; so does
// Decode, at the same depth.
func TestDecodeRefusesWhatEncodingJSONFindsTooDeep(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			check(t, []byte(strings.Repeat(open, depth)+"1"+strings.Repeat(close, depth)))
		}
	}
}

func FuzzDecodeIsEncodingJSON(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

func BenchmarkDecode(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "checkout.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("jsontree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := DecodeOne(body); !ok {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok, one := stdlib(body); !ok || !one {
				b.Fatal("not decoded")
			}
		}
	})
}
