package output

import (
	"bytes"
	"strings"
	"text/template"
)

const templateHint = `templates use Go's text/template over the JSON, e.g. --template '{{range .}}{{.id}} {{.status}}{{"\n"}}{{end}}'`

// templateFuncs is deliberately small: what people reach for when turning
// a payment into a line of text. Anything more is what --jq is for.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		// json renders a value as compact JSON.
		"json":  func(v any) string { return string(marshalNoEscape(v)) },
		"upper": strings.ToUpper,
		"lower": strings.ToLower,
		// join takes the separator first so it reads well in a pipeline:
		// {{.tags | join ", "}}.
		"join": func(sep string, list []any) string {
			parts := make([]string, len(list))
			for i, v := range list {
				parts[i] = String(v)
			}
			return strings.Join(parts, sep)
		},
		// lookup reads a dotted path, e.g. {{lookup "captures.0.amount" .}},
		// and yields "" where the path is missing.
		"lookup": func(path string, v any) string {
			got, _ := Lookup(asObject(v), path)
			return String(got)
		},
	}
}

func compileTemplate(text string) (*template.Template, error) {
	tmpl, err := template.New("template").Funcs(templateFuncs()).Parse(text)
	if err != nil {
		return nil, &Error{Message: "invalid --template", Err: err, HintText: templateHint, Code: 2}
	}
	return tmpl, nil
}

// runTemplate executes the template over decoded JSON (numbers stay
// json.Number, so amounts print as sent). A newline is added when the
// output lacks one, so a per-record template in a stream gives one line per
// record without "\n" in every template.
func (p *Printer) runTemplate(w *bytes.Buffer, data any) error {
	start := w.Len()
	err := p.tmpl.Execute(w, data)
	if w.Len() > start && w.Bytes()[w.Len()-1] != '\n' {
		w.WriteByte('\n')
	}
	if err != nil {
		return &Error{Message: "--template", Err: err, HintText: templateHint, Code: 1}
	}
	return nil
}
