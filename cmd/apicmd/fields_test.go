package apicmd

import (
	"encoding/json"
	"errors"
	"testing"
)

func readFake(name string) ([]byte, error) {
	if name == "note.txt" {
		return []byte("hello\n"), nil
	}
	return nil, errors.New("no such file")
}

func TestParseFieldTyped(t *testing.T) {
	cases := []struct {
		arg  string
		want string // the value as JSON
	}{
		{"a=true", `true`},
		{"a=false", `false`},
		{"a=null", `null`},
		{"a=12", `12`},
		{"a=-1.50", `-1.50`},
		{"a=1e3", `1e3`},
		{"a=007", `"007"`},
		{"a=100.00.0", `"100.00.0"`},
		{"a=@note.txt", `"hello\n"`},
		{`a=[1,"x"]`, `[1,"x"]`},
		{`a={"b":1}`, `{"b":1}`},
		{`a={not json`, `"{not json"`},
		{"a=", `""`},
		{"a=x=y", `"x=y"`},
	}
	for _, c := range cases {
		f, err := parseField(c.arg, true, readFake)
		if err != nil {
			t.Errorf("%s: %v", c.arg, err)
			continue
		}
		got, _ := json.Marshal(f.value)
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.arg, got, c.want)
		}
	}
	// -f never converts.
	f, _ := parseField("a=true", false, readFake)
	if f.value != "true" {
		t.Errorf("-f a=true gave %#v", f.value)
	}
	for _, bad := range []string{"novalue", "=x", "a[b=1", "a]b=1", "[x]=1", "a[][b]=1"} {
		if _, err := parseField(bad, false, readFake); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if _, err := parseField("a=@missing", true, readFake); err == nil {
		t.Error("@missing: want an error")
	}
}

func TestBuildBodyNests(t *testing.T) {
	var fields []field
	for _, a := range []struct {
		arg   string
		typed bool
	}{
		{"amount=10.00", false},
		{"order[reference_id]=A1", false},
		{"order[tax_amount]=1.00", false},
		{"buyer[history][loyalty_level]=2", true},
		{"tags[]=x", false},
		{"tags[]=y", false},
		{`items=[{"title":"t"}]`, true},
	} {
		f, err := parseField(a.arg, a.typed, readFake)
		if err != nil {
			t.Fatal(err)
		}
		fields = append(fields, f)
	}
	body, err := buildBody(fields)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(body)
	want := `{"amount":"10.00","buyer":{"history":{"loyalty_level":2}},"items":[{"title":"t"}],"order":{"reference_id":"A1","tax_amount":"1.00"},"tags":["x","y"]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestBuildBodyConflicts(t *testing.T) {
	for _, pair := range [][2]string{
		{"a=1", "a=2"},
		{"a=1", "a[b]=2"},
		{"a=1", "a[]=2"},
		{"a[b]=1", "a[]=2"},
	} {
		var fields []field
		for _, arg := range pair {
			f, err := parseField(arg, false, readFake)
			if err != nil {
				t.Fatal(err)
			}
			fields = append(fields, f)
		}
		if _, err := buildBody(fields); err == nil {
			t.Errorf("%v: want a conflict", pair)
		}
	}
}

func TestBuildQueryRepeatsKeys(t *testing.T) {
	var fields []field
	for _, arg := range []string{"statuses=new", "statuses=declined", "limit=5"} {
		f, _ := parseField(arg, true, readFake)
		fields = append(fields, f)
	}
	q := buildQuery(fields)
	if q.Encode() != "limit=5&statuses=new&statuses=declined" {
		t.Errorf("query %s", q.Encode())
	}
}

func TestBuildRequest(t *testing.T) {
	o := &Options{Method: "post", Path: "api/v2/payments/x/close", RawFields: []string{"a=1"}, ReadFile: readFake}
	r, err := o.build()
	if err != nil {
		t.Fatal(err)
	}
	if r.method != "POST" || r.path != "/api/v2/payments/x/close" || string(r.body) != `{"a":"1"}` || r.query != nil {
		t.Errorf("got %+v", r)
	}
	o = &Options{Method: "GET", Path: "/api/v2/payments", RawFields: []string{"limit=5"}, ReadFile: readFake}
	if r, err = o.build(); err != nil || r.body != nil || r.query.Get("limit") != "5" {
		t.Errorf("GET: %+v %v", r, err)
	}
	o = &Options{Method: "POST", Path: "/x", Input: "note.txt", RawFields: []string{"q=1"}, ReadFile: readFake}
	if r, err = o.build(); err != nil || string(r.body) != "hello\n" || r.query.Get("q") != "1" {
		t.Errorf("--input: %+v %v", r, err)
	}
	for name, bad := range map[string]*Options{
		"url":           {Method: "GET", Path: "https://evil.example.com/api"},
		"auth header":   {Method: "GET", Path: "/x", Headers: []string{"authorization: Bearer sk_x"}},
		"bad header":    {Method: "GET", Path: "/x", Headers: []string{"no colon"}},
		"paginate post": {Method: "POST", Path: "/x", Paginate: true},
		"method":        {Method: "FETCH", Path: "/x"},
		"stdin twice":   {Method: "POST", Path: "/x", Input: "-", TypedFields: []string{"a=@-"}},
	} {
		bad.ReadFile = readFake
		if _, err := bad.build(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
