package replay

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// maxAppBody bounds a request body the replay server reads from the app.
const maxAppBody = 8 << 20

// Server is the recording played back to the app: a stand-in of the
// service that answers through the sandbox. Each request of the app is
// matched to the first recorded request not yet made with the same method
// and path (ids mapped: a recorded id the app could not know yet matches
// any id), checked against it (query and body, by the comparison rules),
// and sent on to the sandbox after the customer's moves the recording
// shows before it; the sandbox's answer goes to the app. Requests to the
// sandbox's own /_sandbox/ paths are passed on unchecked.
type Server struct {
	e       *Engine
	ctx     context.Context
	used    map[int]bool
	pending int
	notify  int // the next recorded entry whose notifications are to be played
	start   time.Time
	done    chan struct{}
	once    sync.Once

	requestDiffs []Difference
	answerDiffs  []Difference
	matched      int
	unexpected   int
}

// NewServer prepares a replay to the app; ctx bounds the sandbox calls.
func (e *Engine) NewServer(ctx context.Context) *Server {
	s := &Server{e: e, ctx: ctx, used: map[int]bool{}, start: time.Now(), done: make(chan struct{})}
	for _, x := range e.rec.Exchanges {
		if x.IsService() && x.Status != 0 {
			s.pending++
		}
	}
	if s.pending == 0 {
		close(s.done)
	}
	return s
}

// Done is closed once the app has made every recorded request.
func (s *Server) Done() <-chan struct{} { return s.done }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAppBody))
	if err != nil {
		http.Error(w, "bnpl sandbox replay: the request body is too large or was cut", http.StatusRequestEntityTooLarge)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/_sandbox/") {
		// The sandbox's own paths take no key: the app's is never sent on.
		h := http.Header{}
		for _, name := range []string{"Content-Type", "Accept"} {
			if v := r.Header.Get(name); v != "" {
				h.Set(name, v)
			}
		}
		ans, err := s.e.sb.Do(r.Context(), r.Method, r.URL.Path, r.URL.RawQuery, h, body)
		s.answer(w, ans, err)
		return
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	x := s.match(r)
	if x == nil {
		s.unexpected++
		s.requestDiffs = append(s.requestDiffs, Difference{Method: r.Method, Path: r.URL.Path, Field: "request",
			Kind: DiffRequest, Want: Absent, Got: show(r.Method + " " + r.URL.Path), Side: "request"})
		stray := appExchange(r)
		ans, err := s.e.send(s.ctx, stray, r.Method, r.URL.Path, r.URL.RawQuery, r.Header, body)
		s.answer(w, ans, err)
		return
	}
	s.checkRequest(x, r, body)
	s.e.ensure(s.ctx, x)
	as := x
	if app := appExchange(r); credKind(app) != credKind(x) {
		// Credentials of another kind than recorded go as what they are.
		as = &Exchange{N: x.N, Method: x.Method, Path: x.Path, Header: app.Header, Key: app.Key, KeyID: app.KeyID, Status: x.Status, Body: x.body()}
	}
	ans, err := s.e.send(s.ctx, as, r.Method, r.URL.Path, r.URL.RawQuery, r.Header, body)
	if err == nil {
		s.answerDiffs = append(s.answerDiffs, s.e.compareAnswer(x, ans, "answer")...)
	}
	s.answer(w, ans, err)
}

func (s *Server) answer(w http.ResponseWriter, ans *Answer, err error) {
	if err != nil {
		http.Error(w, "bnpl sandbox replay: "+err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range ans.Header {
		if !strings.EqualFold(k, "Content-Length") {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(ans.Status)
	w.Write(ans.Body)
}

// match finds the recorded request the app's stands for, and plays the
// notifications the recording holds before it.
func (s *Server) match(r *http.Request) *Exchange {
	for i, x := range s.e.rec.Exchanges {
		if s.used[i] || !x.IsService() || x.Status == 0 || !strings.EqualFold(x.Method, r.Method) || !s.samePath(x.Path, r.URL.Path) {
			continue
		}
		for ; s.notify < i; s.notify++ {
			if n := s.e.rec.Exchanges[s.notify]; n.Kind == har.KindNotification {
				s.e.ensure(s.ctx, n)
			}
		}
		s.used[i] = true
		s.matched++
		if s.pending--; s.pending == 0 {
			s.once.Do(func() { close(s.done) })
		}
		return x
	}
	return nil
}

// samePath tells whether the app's path is the recorded one: equal
// segments, mapped ids equal to their sandbox ids, and an id the map does
// not know yet standing for any id (learnt then).
func (s *Server) samePath(recorded, got string) bool {
	rs, gs := strings.Split(recorded, "/"), strings.Split(got, "/")
	if len(rs) != len(gs) {
		return false
	}
	for i := range rs {
		if mapped, ok := s.e.ids.Get(rs[i]); ok {
			if gs[i] != mapped {
				return false
			}
			continue
		}
		if isUUID(rs[i]) && isUUID(gs[i]) {
			continue
		}
		if rs[i] != gs[i] {
			return false
		}
	}
	for i := range rs {
		if isUUID(rs[i]) && rs[i] != gs[i] {
			s.e.ids.Set(rs[i], gs[i])
		}
	}
	return true
}

// credKind is the kind of a request's credentials as replay holds the
// app to them: none, a value that is no Bearer secret key, a test key or
// a live key. The app's own key stands for the recorded one of its mode
// (a recording holds no key an app could present).
func credKind(x *Exchange) string {
	v := x.Header.Get("Authorization")
	switch _, ok := authScheme(v); {
	case v == "":
		return "no key"
	case !ok:
		return "no Bearer secret key"
	case x.Live():
		return "a live key"
	}
	return "a test key"
}

// appExchange is an app's request the recording lacks, with its key as a
// recording would hold it (masked, with its key id): a key the recording
// knows stands for what it stood for there, any other for a key the
// sandbox does not know.
func appExchange(r *http.Request) *Exchange {
	x := &Exchange{Method: r.Method, Path: r.URL.Path, Header: http.Header{}}
	if v := r.Header.Get("Authorization"); v != "" {
		x.Header.Set("Authorization", secret.MaskAuthorization(v))
		if key, ok := authScheme(v); ok {
			x.Key, x.KeyID = secret.MaskKey(key), har.KeyID(key)
		}
	}
	return x
}

// checkRequest compares the app's query, credentials and body with the
// recorded ones.
func (s *Server) checkRequest(x *Exchange, r *http.Request, body []byte) {
	c := &comparer{ids: s.e.ids, base: Difference{N: x.N, Method: x.Method, Path: x.Path, Side: "request"}, follow: true}
	if want, got := credKind(x), credKind(appExchange(r)); want != got {
		c.add("header Authorization", DiffValue, show(want), show(got))
	}
	c.object("?", queryDoc(x.Query), queryDoc(r.URL.RawQuery))
	want, okW := decode(x.body())
	got, okG := decode(body)
	switch {
	case okW && okG:
		c.value("$", "", want, got)
	case okW != okG:
		c.add("$", DiffBody, bodyKind(x.Header.Get("Content-Type"), x.body()), bodyKind(r.Header.Get("Content-Type"), body))
	}
	s.requestDiffs = append(s.requestDiffs, c.diffs...)
}

func queryDoc(raw string) map[string]any {
	q, _ := url.ParseQuery(raw)
	out := map[string]any{}
	for k, v := range q {
		if len(v) == 1 {
			out[k] = v[0]
			continue
		}
		list := make([]any, len(v))
		for i, s := range v {
			list[i] = s
		}
		out[k] = list
	}
	return out
}

// NoAnswer is why replay leaves out a recorded request the service never
// answered (status 0 in the file): there is no answer to play back.
const NoAnswer = "requests the service never answered (no answer to play back)"

// Finish reports the replay: the requests the app made otherwise, made
// that were not recorded, or did not make. Its counts add up to the
// file's entries: the requests replayed (Exchanges), the notifications
// (played as the customer's moves they show), and those left out by
// reason.
func (s *Server) Finish() *Report {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	rep := &Report{Recording: s.e.rec.Name, Differences: append([]Difference{}, s.requestDiffs...),
		AnswerDifferences: append([]Difference{}, s.answerDiffs...), Ignored: []Difference{},
		Compared: s.matched, Unexpected: s.unexpected, Entries: s.e.rec.Entries, LeftOut: append([]LeftOut{}, s.e.rec.LeftOut...)}
	unanswered := 0
	for i, x := range s.e.rec.Exchanges {
		if x.Kind == har.KindNotification {
			rep.Notifications++
			continue
		}
		if x.Status == 0 {
			unanswered++
			continue
		}
		rep.Exchanges++
		if !s.used[i] {
			rep.Differences = append(rep.Differences, Difference{N: x.N, Method: x.Method, Path: x.Path, Field: "request",
				Kind: DiffRequest, Want: show(x.Method + " " + x.Path), Got: Absent, Side: "request"})
		}
	}
	if unanswered > 0 {
		rep.LeftOut = append(rep.LeftOut, LeftOut{Why: NoAnswer, Count: unanswered})
		sort.Slice(rep.LeftOut, func(i, j int) bool { return rep.LeftOut[i].Why < rep.LeftOut[j].Why })
	}
	order := func(d Difference) int {
		if d.N == 0 {
			return math.MaxInt // not recorded: after the recorded ones
		}
		return d.N
	}
	sort.SliceStable(rep.Differences, func(i, j int) bool { return order(rep.Differences[i]) < order(rep.Differences[j]) })
	rep.Actions, rep.Skipped = append([]Action{}, s.e.actions...), append([]Note{}, s.e.notes...)
	if err := s.e.rec.bodies.failed(); err != nil {
		rep.Skipped = append(rep.Skipped, Note{Why: "the comparisons may be wrong: " + err.Error()})
	}
	rep.Seconds = time.Since(s.start).Seconds()
	return rep
}
