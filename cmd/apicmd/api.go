// Package apicmd is `bnpl api`: any request to the service, sent with the
// profile's key, region, retries and masking, for what no other command
// covers and for scripts that want the service's own JSON. (The package is
// not named api so that it does not shadow internal/api.)
package apicmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
	"github.com/bnpl-cli/bnpl/internal/userfile"
	"github.com/bnpl-cli/bnpl/internal/walk"
)

// Options are the inputs of `bnpl api`.
type Options struct {
	Method      string
	Path        string
	Input       string // file of the body, "-" for stdin
	RawFields   []string
	TypedFields []string
	Headers     []string
	Paginate    bool
	JSONL       bool
	// Concurrency is how many pages of an offset-paged list are read at
	// once.
	Concurrency int
	// Progress counts the pages read on a terminal.
	Progress *cmdutil.Progress

	In       io.Reader
	Out      io.Writer
	ReadFile func(string) ([]byte, error)
	Client   func() (*api.Client, error)
	Printer  func() (*output.Printer, error)
	// Transforms is true when --jq or --template is given: paginated items
	// are then gathered into one array for the filter to see whole.
	Transforms bool
}

// apiLong is the help of `bnpl api`.
const apiLong = `Send a request to any path of the service and print the answer's JSON. The key,
base URL, retries, --dry-run and --debug are those of every other command.

Fields build the request:
  -f key=value        a string
  -F key=value        typed: true, false, null, a number, inline JSON ([...] or {...}),
                      or @FILE for a file's contents as a string (@- for stdin)
  key[sub]=value      nests objects: -f 'order[reference_id]=A1' gives {"order":{"reference_id":"A1"}}
  key[]=value         appends to an array

For GET, HEAD and DELETE, and whenever --input gives the body, fields become query
parameters instead (a key given twice is sent twice). Amounts are strings in this
API: give them with -f.

--paginate follows the payments list's offset and the disputes list's
next_page_token, and prints all items as one JSON array (--jsonl: one per line).
--jq and --template see that whole array (each item with --jsonl). Pages by offset are read --concurrency at
a time, each overlapping the one before by a few items, so that an item that stays
in the list while it is read is printed once even when the list changes meanwhile.

Output is JSON unless -o says otherwise. An answer that is not 2xx is an error:
it is reported on stderr and the exit code is that of the status (3 for 400, 4 for
401, 6 for 404, ...); with -o json the error object on stderr carries the answer's
body under "body". Nothing is printed on stdout then.`

// completeArgs completes a method, then a path of the service.
func completeArgs(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return []string{"GET", "POST", "PUT", "DELETE"}, cobra.ShellCompDirectiveNoFileComp
	case 1:
		return []string{"/api/v2/checkout", "/api/v2/payments", "/api/v1/webhooks", "/api/v1/dispute-webhooks", "/api/v1/disputes"}, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// prepare checks the flags and settles progress and the printer: JSON
// unless -o says otherwise.
func (o *Options) prepare(f *cmdutil.Factory) error {
	if o.Concurrency < 1 || o.Concurrency > maxConcurrency {
		return cmdutil.Usagef("--concurrency must be between 1 and %d, got %d", maxConcurrency, o.Concurrency)
	}
	g := f.Global
	o.Transforms = g.JQ != "" || g.Template != ""
	if !f.IO.IsStdoutTTY() || o.Transforms {
		// Rows on the terminal say how far it got by themselves;
		// --jq and --template print only at the end.
		o.Progress = cmdutil.NewProgress(f.IO, f.Global.Quiet)
	}
	format := g.Output
	if o.JSONL {
		if format != "" && format != output.FormatJSONL {
			return cmdutil.Usagef("--jsonl and -o %s cannot be used together", format)
		}
		format = output.FormatJSONL
	}
	if format == "" {
		// The service's JSON is the point of this command, on a
		// terminal as in a pipe. The global -o stays unset, so that
		// errors are JSON on stderr only when -o json asks for it.
		format = output.FormatJSON
	}
	o.Printer = func() (*output.Printer, error) {
		return output.NewPrinter(f.IO, output.Options{
			Format: format, JQ: g.JQ, Template: g.Template, Columns: g.Columns, NoHeader: g.NoHeader,
		})
	}
	return nil
}

// NewCmd returns `bnpl api`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &Options{In: f.IO.In, Out: f.IO.Out, ReadFile: readUserFile, Client: f.Client}
	cmd := &cobra.Command{
		Use:   "api <method> <path>",
		Short: "Send any request to the service with the profile's key and region",
		Long:  apiLong,
		Example: `  bnpl api GET /api/v2/payments -f limit=5
  bnpl api GET /api/v2/payments --paginate --jq 'length'
  bnpl api GET /api/v2/payments -f status=closed --paginate --jsonl
  bnpl api POST /api/v2/checkout --input testdata/checkout.json --jq .payment.id
  bnpl api PUT /api/v2/payments/3fa85f64-5717-4562-b3fc-2c963f66afa6 -f 'order[reference_id]=ORDER-1002'
  bnpl api GET /api/v1/webhooks -H 'Accept-Language: en'`,
		Args:              cmdutil.ExactArgs(2, "a method (GET, POST, PUT, DELETE)", "a path such as /api/v2/payments"),
		ValidArgsFunction: completeArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Method, opts.Path = args[0], args[1]
			if err := opts.prepare(f); err != nil {
				return err
			}
			return Run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Input, "input", "", "file holding the request body, - for stdin")
	fl.StringArrayVarP(&opts.RawFields, "field", "f", nil, "string field key=value (repeatable)")
	fl.StringArrayVarP(&opts.TypedFields, "typed-field", "F", nil, "typed field key=value: true, false, null, numbers, inline JSON, @file (repeatable)")
	fl.StringArrayVarP(&opts.Headers, "header", "H", nil, "extra request header 'Name: value' (repeatable)")
	fl.BoolVar(&opts.Paginate, "paginate", false, "follow every page (GET) and print all items as one array")
	fl.BoolVar(&opts.JSONL, "jsonl", false, "print items one JSON object per line (same as -o jsonl)")
	fl.IntVar(&opts.Concurrency, "concurrency", walk.DefaultConcurrency, fmt.Sprintf("pages of an offset-paged list read at once with --paginate, 1 to %d", maxConcurrency))
	return cmd
}

// request is what the flags describe, checked before anything is sent.
type request struct {
	method string
	path   string
	query  url.Values
	header http.Header
	body   []byte
}

func (o *Options) build() (*request, error) {
	r := &request{method: strings.ToUpper(strings.TrimSpace(o.Method)), header: http.Header{}}
	if err := o.checkMethodAndPath(r); err != nil {
		return nil, err
	}
	readFile := o.fileReader()
	fields, err := o.fields(readFile)
	if err != nil {
		return nil, err
	}
	if err := o.addHeaders(r); err != nil {
		return nil, err
	}
	fieldsInQuery := r.method == http.MethodGet || r.method == http.MethodHead || r.method == http.MethodDelete || o.Input != ""
	switch {
	case o.Input != "":
		b, err := readFile(o.Input)
		if err != nil {
			return nil, cmdutil.Refuse("give a readable file, or - for stdin", "--input: %v", err)
		}
		r.body = b
	case !fieldsInQuery && len(fields) > 0:
		body, err := buildBody(fields)
		if err != nil {
			return nil, cmdutil.Usagef("%v", err)
		}
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r.body = b
	}
	if fieldsInQuery && len(fields) > 0 {
		r.query = buildQuery(fields)
	}
	return r, nil
}

// checkMethodAndPath settles the request's method and path, refusing what
// cannot be sent.
func (o *Options) checkMethodAndPath(r *request) error {
	switch r.method {
	case "":
		return cmdutil.Usagef("the method is empty")
	case "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS":
	default:
		return cmdutil.UsageHint("use GET, POST, PUT or DELETE", "unknown method %q", o.Method)
	}
	path := strings.TrimSpace(o.Path)
	if strings.Contains(path, "://") {
		return cmdutil.UsageHint("give the path only, e.g. /api/v2/payments: the base URL comes from the profile (or BNPL_BASE_URL)",
			"%q is a URL, not a path", o.Path)
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	r.path = path
	if o.Paginate && r.method != http.MethodGet {
		return cmdutil.Usagef("--paginate works with GET only, not %s", r.method)
	}
	if o.Input == "-" {
		for _, v := range o.TypedFields {
			if strings.Contains(v, "=@-") {
				return cmdutil.Usagef("stdin can feed --input - or -F key=@-, not both")
			}
		}
	}
	return nil
}

// fileReader reads a file a flag names, or stdin for "-", which can be
// read only once.
func (o *Options) fileReader() func(string) ([]byte, error) {
	stdinRead := false
	return func(name string) ([]byte, error) {
		if name == "-" {
			if stdinRead {
				return nil, fmt.Errorf("stdin can be read only once")
			}
			stdinRead = true
			return userfile.Read("", name, o.In, userfile.MaxRequestBody)
		}
		return o.ReadFile(name)
	}
}

// fields parses -f and -F, in that order.
func (o *Options) fields(readFile func(string) ([]byte, error)) ([]field, error) {
	var fields []field
	for _, a := range o.RawFields {
		fl, err := parseField(a, false, readFile)
		if err != nil {
			return nil, cmdutil.Usagef("%v", err)
		}
		fields = append(fields, fl)
	}
	for _, a := range o.TypedFields {
		fl, err := parseField(a, true, readFile)
		if err != nil {
			return nil, cmdutil.Refuse("check the file name after @", "%v", err)
		}
		fields = append(fields, fl)
	}
	return fields, nil
}

// addHeaders adds -H's headers; the key is never one of them.
func (o *Options) addHeaders(r *request) error {
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return cmdutil.Usagef("-H %q: want 'Name: value'", h)
		}
		if strings.EqualFold(name, "Authorization") {
			return cmdutil.UsageHint("the key comes from the profile or BNPL_SECRET_KEY, never from the command line",
				"-H Authorization is not accepted")
		}
		r.header.Add(name, strings.TrimSpace(value))
	}
	return nil
}

// readUserFile reads a file named by --input or -F key=@FILE: a regular
// file, at most a request body's size.
func readUserFile(name string) ([]byte, error) {
	return userfile.Read("", name, nil, userfile.MaxRequestBody)
}

// Run sends the request (every page of it with --paginate) and prints the
// answer.
func Run(ctx context.Context, o *Options) error {
	r, err := o.build()
	if err != nil {
		return err
	}
	printer, client, err := cmdutil.PrinterAndClient(o.Printer, o.Client)
	if err != nil {
		return err
	}
	if o.Paginate {
		return o.paginate(ctx, client, printer, r)
	}
	resp, err := send(ctx, client, r, r.query)
	if err != nil {
		return err
	}
	return o.print(printer, resp.Body)
}

func send(ctx context.Context, client *api.Client, r *request, query url.Values) (*api.RawResponse, error) {
	resp, err := client.Raw(ctx, api.RawRequest{Method: r.method, Path: r.path, Query: query, Header: r.header, Body: r.body})
	if err != nil {
		if apiErr, ok := api.AsAPIError(err); ok && resp != nil {
			return nil, &responseError{err: err, status: apiErr.Status, body: resp.Body}
		}
		return nil, err
	}
	return resp, nil
}

// print writes one answer: JSON through the printer, anything else (an
// image, plain text) as it came.
func (o *Options) print(printer *output.Printer, body []byte) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	if !json.Valid(trimmed) {
		if o.Transforms {
			return fmt.Errorf("the answer is not JSON, so --jq and --template cannot read it")
		}
		_, err := o.Out.Write(body)
		return err
	}
	if trimmed[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return err
		}
		return printer.List(nil, items)
	}
	return printer.Object(trimmed, nil)
}

// paginate walks the pages. Plain output streams as pages arrive, so memory
// stays one page deep; --jq and --template get every item at once, since a
// filter such as 'length' means the whole list.
func (o *Options) paginate(ctx context.Context, client *api.Client, printer *output.Printer, r *request) error {
	// A query written into the path joins the fields' query.
	pathOnly, rawQuery, _ := strings.Cut(r.path, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return cmdutil.Usagef("the query of %q is malformed: %v", r.path, err)
	}
	for k, vs := range r.query {
		query[k] = append(query[k], vs...)
	}
	req := *r
	req.path = pathOnly
	pg := newPager(pathOnly, query)

	var gathered []json.RawMessage
	var stream *output.Stream
	if !o.Transforms {
		stream = printer.Stream(nil)
	}
	put := func(item json.RawMessage) error {
		if stream == nil {
			gathered = append(gathered, item)
			return nil
		}
		if o.Progress != nil {
			// A reader of a pipe may print on this terminal.
			o.Progress.BeforeData()
		}
		return stream.Write(item)
	}
	next := query
	for next != nil {
		// On an error the stream is left unclosed: closing would print a
		// tidy "]" (or "[]") that a careless script could take for a whole
		// list. The exit code says it is not.
		resp, err := send(ctx, client, &req, next)
		if err != nil {
			return err
		}
		p, err := pg.read(resp.Body)
		if err != nil {
			return err
		}
		if p.next != nil && p.offset != nil {
			// Paged by offset: the walker reads the rest, several pages
			// at once, from this first page on.
			if err := o.walkOffsets(ctx, client, &req, pg, next, p, put); err != nil {
				return err
			}
			break
		}
		for _, item := range p.items {
			if err := put(item); err != nil {
				return err
			}
		}
		if stream != nil {
			if err := stream.Flush(); err != nil {
				return err
			}
		}
		next = p.next
	}
	if stream != nil {
		return stream.Close()
	}
	if gathered == nil {
		gathered = []json.RawMessage{}
	}
	return printer.List(nil, gathered)
}

// maxConcurrency bounds --concurrency.
const maxConcurrency = 16

// walkOffsets reads an offset-paged list from its first page on (read
// with the query first) through the walker, handing each item to put in
// the list's order.
func (o *Options) walkOffsets(ctx context.Context, client *api.Client, req *request, pg *pager, first url.Values, p page, put func(json.RawMessage) error) error {
	start := 0
	if p.offset.Offset != nil {
		start = *p.offset.Offset
	}
	size := p.offset.Limit
	if size <= 0 {
		size = len(p.items)
	}
	w := &walk.Walker{
		Start:       start,
		PageSize:    size,
		Concurrency: o.Concurrency,
		First:       &walk.Page{Items: walkItems(p.items), Total: p.offset.TotalCount},
		Fetch: func(ctx context.Context, offset, limit int) (walk.Page, error) {
			q := url.Values{}
			for k, vs := range first {
				q[k] = append([]string(nil), vs...)
			}
			q.Set("offset", strconv.Itoa(offset))
			q.Set("limit", strconv.Itoa(limit))
			resp, err := send(ctx, client, req, q)
			if err != nil {
				return walk.Page{}, err
			}
			return pg.offsetPage(resp.Body)
		},
	}
	if o.Progress != nil {
		w.Progress = func(read, total int) { o.Progress.Show("page %d of %d", read, total) }
		defer o.Progress.Done()
	}
	return w.Walk(ctx, func(it walk.Item) (bool, error) {
		if err := put(it.Raw); err != nil {
			return false, err
		}
		return true, nil
	})
}

// responseError is a non-2xx answer of `bnpl api`: the API error with its
// exit code and hint, plus the body as received, which `-o json` puts in
// the error object on stderr for scripts that want the service's own words.
type responseError struct {
	err    error
	status int
	body   []byte
}

func (e *responseError) Error() string { return e.err.Error() }
func (e *responseError) Unwrap() error { return e.err }

// ErrorDetails adds "response", the answer's body, to the API error's
// details.
func (e *responseError) ErrorDetails() map[string]any {
	d := map[string]any{"status": e.status}
	var detailer output.ErrorDetailer
	if errors.As(e.err, &detailer) {
		d = detailer.ErrorDetails()
	}
	body := bytes.TrimSpace(e.body)
	switch {
	case len(body) == 0:
	case json.Valid(body):
		d["response"] = json.RawMessage(body)
	default:
		d["response"] = string(body)
	}
	return d
}
